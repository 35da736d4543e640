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
  return remember("logger", () =>
    pino({
      level: env().logLevel,
      base: { service: "routekit" },
      redact: { paths: REDACT, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    }),
  );
}

/**
 * The one line per request (custom server): fixed fields of our own making
 * (request id, method, the path with its token masked, status, time, client
 * address), so nothing in it can carry a secret. It skips the redaction pass,
 * which with wildcard paths costs more than writing the line (about 20–40 µs
 * of a voice request's few hundred).
 */
export function requestLogger(): pino.Logger {
  return remember("logger.requests", () => logger().child({}, { redact: [] }));
}
