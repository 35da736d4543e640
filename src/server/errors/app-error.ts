import { DEFAULT_MESSAGE, type ErrorCode } from "./error-codes";

export type ErrorDetail = { path: string; message: string };

/** The one error type services throw; the mapper turns it into the envelope. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Seconds, for RATE_LIMITED. */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { details?: ErrorDetail[]; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message ?? DEFAULT_MESSAGE[code], { cause: opts.cause });
    this.name = "AppError";
    this.code = code;
    this.details = opts.details;
    this.retryAfter = opts.retryAfter;
  }
}
