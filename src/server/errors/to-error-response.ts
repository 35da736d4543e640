import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { AppError, type ErrorDetail } from "./app-error";
import { DEFAULT_MESSAGE, ERROR_STATUS, type ErrorCode, type ErrorStatus } from "./error-codes";
import { ERROR_DETAILS_MAX_ITEMS, MESSAGE_MAX_CHARS, RETRY_AFTER_MAX_SECONDS } from "../../shared/schemas/bounds";

export type ErrorEnvelope = {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
};

export type MappedError = {
  status: ErrorStatus;
  body: ErrorEnvelope;
  headers: Record<string, string>;
  /** True for 5xx: the caller logs the original error; the client sees none of it. */
  unexpected: boolean;
};

function zodDetails(err: ZodError): ErrorDetail[] {
  return err.issues.map((i) => ({ path: i.path.map(String).join(".") || "(body)", message: i.message }));
}

/** The envelope's bounds (shared/schemas/bounds.ts): the first details, each text cut to a message's length. */
const cut = (text: string) => (text.length > MESSAGE_MAX_CHARS ? text.slice(0, MESSAGE_MAX_CHARS) : text);
function boundedDetails(details: ErrorDetail[]): ErrorDetail[] {
  return details.slice(0, ERROR_DETAILS_MAX_ITEMS).map((d) => ({ path: cut(d.path), message: cut(d.message) }));
}

/**
 * tRPC wraps what a procedure throws. An input that fails its schema arrives as
 * BAD_REQUEST with the ZodError as cause; anything else thrown inside arrives
 * as INTERNAL_SERVER_ERROR with the original as cause (an output that fails its
 * schema is our bug, so its ZodError stays a 500).
 */
function unwrap(err: unknown): unknown {
  if (!(err instanceof TRPCError)) return err;
  if (err.cause instanceof AppError) return err.cause;
  if (err.code === "BAD_REQUEST" && err.cause instanceof ZodError) return err.cause;
  if (err.code === "INTERNAL_SERVER_ERROR" && err.cause && !(err.cause instanceof ZodError)) return err.cause;
  return err;
}

const TRPC_TO_CODE: Partial<Record<TRPCError["code"], ErrorCode>> = {
  BAD_REQUEST: "VALIDATION_FAILED",
  PARSE_ERROR: "VALIDATION_FAILED",
  UNAUTHORIZED: "UNAUTHORIZED",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_SUPPORTED: "METHOD_NOT_ALLOWED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  TOO_MANY_REQUESTS: "RATE_LIMITED",
};

function isPrismaKnownError(err: unknown): err is Error & { code: string } {
  return (
    err instanceof Error &&
    err.name === "PrismaClientKnownRequestError" &&
    typeof (err as { code?: unknown }).code === "string"
  );
}

/** Node's socket errors: the database (or the queue's connection to it) cannot be reached right now. */
const TRANSIENT_NODE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ENOTFOUND",
]);
/**
 * PostgreSQL SQLSTATEs that mean "try again", one by one: serialization failure
 * and deadlock (40001, 40P01), cancelled by the statement timeout (57014), a
 * database not accepting connections or an object in use (55000 with
 * ALLOW_CONNECTIONS false, 55006), a lock not available (55P03).
 */
const TRANSIENT_SQLSTATES = new Set(["40001", "40P01", "57014", "55000", "55006", "55P03"]);
/**
 * And by class: connection exceptions (08xxx), insufficient resources (53xxx:
 * disk, memory, too many connections), operator intervention that ends or
 * refuses a session (57P01 admin shutdown … 57P05 idle session timeout).
 */
const TRANSIENT_SQLSTATE_PREFIXES = ["08", "53", "57P0"];
/** Prisma's codes for the same: cannot reach, timed out, connection closed, pool timeout, write conflict, too many connections. */
const TRANSIENT_PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2034", "P2037"]);
/** What `pg` and its pool say, in messages only, when the connection is gone or never came. */
const TRANSIENT_MESSAGES = [
  "timeout exceeded when trying to connect",
  "connection terminated",
  "connection timeout",
  "query read timeout",
  "not queryable",
  "cannot use a pool after calling end",
  "server closed the connection unexpectedly",
  "can't reach database server",
  "terminating connection due to",
];

function isTransientCode(code: string): boolean {
  if (TRANSIENT_NODE_CODES.has(code) || TRANSIENT_SQLSTATES.has(code) || TRANSIENT_PRISMA_CODES.has(code)) return true;
  // SQLSTATEs are five characters; Prisma's P-codes and Node's E-codes never start with these.
  return code.length === 5 && TRANSIENT_SQLSTATE_PREFIXES.some((p) => code.startsWith(p));
}

/** How many wrapped errors are looked through: more than any driver stacks, few enough that a cycle costs nothing. */
const MAX_ERRORS_WALKED = 16;

/**
 * True for an error that means the database is unreachable or busy right now,
 * not that the request is wrong: the answer is 503 "try again", never 500
 * (docs/decisions.md §3, §7). Looks through wrapped errors: `cause` (tRPC, pg),
 * AggregateError's `errors`, and Prisma's driver adapter, which keeps the
 * SQLSTATE as `meta.driverAdapterError.cause.originalCode` behind a generic
 * P2039/P2010 code and in a plain object, not an Error.
 */
export function isTransientError(thrown: unknown): boolean {
  const queue: unknown[] = [thrown];
  const seen = new Set<unknown>();
  while (queue.length && seen.size < MAX_ERRORS_WALKED) {
    const err = queue.shift();
    if (err === null || typeof err !== "object" || seen.has(err)) continue;
    seen.add(err);
    const fields = err as {
      code?: unknown;
      originalCode?: unknown;
      message?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    for (const code of [fields.code, fields.originalCode])
      if (typeof code === "string" && isTransientCode(code)) return true;
    // Messages only of errors: a plain object's message may be anything the database said.
    if (err instanceof Error) {
      const message = err.message.toLowerCase();
      if (TRANSIENT_MESSAGES.some((m) => message.includes(m))) return true;
    }
    if (err instanceof AggregateError) queue.push(...err.errors);
    queue.push(fields.cause, fields.meta?.driverAdapterError);
  }
  return false;
}

/** Seconds a client waits before retrying a 503: long enough for a pool to reconnect or a failover to finish. */
const SERVICE_UNAVAILABLE_RETRY_AFTER_S = 5;

/** The one mapper from anything thrown to the error envelope (docs/decisions.md §3). */
export function toErrorResponse(thrown: unknown): MappedError {
  const err = unwrap(thrown);
  let code: ErrorCode = "INTERNAL";
  let message: string | undefined;
  let details: ErrorDetail[] | undefined;
  const headers: Record<string, string> = {};

  if (err instanceof AppError) {
    code = err.code;
    message = err.message;
    details = err.details;
    if (err.retryAfter !== undefined)
      headers["retry-after"] = String(Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(1, Math.ceil(err.retryAfter))));
  } else if (err instanceof ZodError) {
    code = "VALIDATION_FAILED";
    details = zodDetails(err);
  } else if (err instanceof TRPCError && TRPC_TO_CODE[err.code]) {
    code = TRPC_TO_CODE[err.code]!;
  } else if (isPrismaKnownError(err) && err.code === "P2025") {
    code = "NOT_FOUND";
  } else if (isTransientError(err)) {
    code = "SERVICE_UNAVAILABLE";
  }

  // "Try again" always says when (the reference promises Retry-After on every 503).
  if (code === "SERVICE_UNAVAILABLE" && !headers["retry-after"])
    headers["retry-after"] = String(SERVICE_UNAVAILABLE_RETRY_AFTER_S);
  const status = ERROR_STATUS[code];
  const unexpected = status >= 500 && !(err instanceof AppError);
  // 5xx bodies never carry internals (stack, SQL): the default message only.
  if (status >= 500 && !(err instanceof AppError)) message = undefined;

  const body: ErrorEnvelope = { error: { code, message: cut(message ?? DEFAULT_MESSAGE[code]) } };
  if (details?.length) body.error.details = boundedDetails(details);
  return { status, body, headers, unexpected };
}
