import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { AppError, type ErrorDetail } from "./app-error";
import { DEFAULT_MESSAGE, ERROR_STATUS, type ErrorCode } from "./error-codes";

export type ErrorEnvelope = {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
};

export type MappedError = {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
  /** True for 5xx: the caller logs the original error; the client sees none of it. */
  unexpected: boolean;
};

export function zodDetails(err: ZodError): ErrorDetail[] {
  return err.issues.map((i) => ({ path: i.path.map(String).join(".") || "(body)", message: i.message }));
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
  return err instanceof Error && err.name === "PrismaClientKnownRequestError" && typeof (err as { code?: unknown }).code === "string";
}

/** The one mapper from anything thrown to the error envelope (decisions §3). */
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
    if (err.retryAfter !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(err.retryAfter)));
  } else if (err instanceof ZodError) {
    code = "VALIDATION_FAILED";
    details = zodDetails(err);
  } else if (err instanceof TRPCError && TRPC_TO_CODE[err.code]) {
    code = TRPC_TO_CODE[err.code]!;
  } else if (isPrismaKnownError(err) && err.code === "P2025") {
    code = "NOT_FOUND";
  }

  const status = ERROR_STATUS[code];
  const unexpected = status >= 500 && !(err instanceof AppError);
  // 5xx bodies never carry internals (stack, SQL): the default message only.
  if (status >= 500 && !(err instanceof AppError)) message = undefined;

  const body: ErrorEnvelope = { error: { code, message: message ?? DEFAULT_MESSAGE[code] } };
  if (details && details.length) body.error.details = details;
  return { status, body, headers, unexpected };
}
