import pino from "pino";
import { env } from "./env";
import { remember } from "./runtime/remember";

/**
 * Structured JSON logs. Secrets must never reach a log line: request bodies are
 * never logged, and the redaction list below is a second line of defence for
 * any object that carries one by accident.
 */
const REDACT = [
  "password",
  "passwordHash",
  "apiKey",
  "key",
  "token",
  "authorization",
  "webhookSecret",
  "providerAuthToken",
  "secret",
  "*.password",
  "*.passwordHash",
  "*.apiKey",
  "*.key",
  "*.token",
  "*.authorization",
  "*.webhookSecret",
  "*.providerAuthToken",
  "*.secret",
  "headers.authorization",
  "headers.cookie",
  "req.headers.authorization",
  "req.headers.cookie",
];

export function logger(): pino.Logger {
  return remember("logger", () => pino({
    level: env().logLevel,
    base: { service: "routekit" },
    redact: { paths: REDACT, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  }));
}
