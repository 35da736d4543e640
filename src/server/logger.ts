import "server-only";
import { writeSync } from "node:fs";
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

/** `error` and `fatal`: written through at once, with every line queued before them. */
const FLUSHED_LEVEL = 50;

/**
 * Stdout with the lines of one turn of the event loop written together: a busy
 * engine answers many requests a turn and made one blocking write for each line
 * (about 5 % of a voice request's CPU when measured). The writes stay
 * synchronous, so nothing is ever half-way through the thread pool: an `error`
 * or `fatal` line goes out with everything before it before the call returns,
 * and the rest at the end of the turn or on exit. A process killed outright
 * (SIGKILL) loses at most the ordinary lines of the turn it was in; the queue
 * never holds more than that one turn.
 */
class CoalescedStdout {
  private queued: string[] = [];
  private pending: NodeJS.Immediate | null = null;

  constructor(private readonly fd: number) {
    process.on("exit", () => this.flushSync());
  }

  write(line: string): void {
    this.queued.push(line);
    this.pending ??= setImmediate(() => this.flushSync());
  }

  flushSync(): void {
    if (this.pending) clearImmediate(this.pending);
    this.pending = null;
    if (!this.queued.length) return;
    let data = Buffer.from(this.queued.join(""));
    this.queued = [];
    while (data.length) {
      try {
        data = data.subarray(writeSync(this.fd, data));
      } catch (err) {
        // A full pipe (stdout non-blocking): wait a moment and go on. Anything else (a closed stdout) drops the lines.
        if ((err as NodeJS.ErrnoException).code !== "EAGAIN") return;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
  }
}

export function logger(): pino.Logger {
  return remember("logger", () => {
    const destination = new CoalescedStdout(1);
    return pino(
      {
        level: env().logLevel,
        base: { service: "routekit" },
        redact: { paths: REDACT, censor: "[redacted]" },
        timestamp: pino.stdTimeFunctions.isoTime,
        hooks: {
          logMethod(args, method, level) {
            method.apply(this, args);
            if (level >= FLUSHED_LEVEL) destination.flushSync();
          },
        },
      },
      destination,
    );
  });
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
