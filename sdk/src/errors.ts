import type { operations } from "./generated/openapi.js";

/** The one error envelope, read from a route's 401 answer so that it does not depend on the schema's name. */
type Envelope = operations["account.get"]["responses"][401]["content"]["application/json"];
/** Every code of the error envelope (docs/api.md#errors). */
export type ErrorCode = Envelope["error"]["code"];
export type ErrorDetail = NonNullable<Envelope["error"]["details"]>[number];

/**
 * The service answered with an error. `code` is the envelope's (for programs), `message` its text (for
 * people), `requestId` the `x-request-id` that finds the request in the service's logs. Subclasses name the
 * families a program usually handles apart; `instanceof RoutekitError` catches them all.
 */
export class RoutekitError extends Error {
  override name = "RoutekitError";
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  readonly requestId: string | null;

  constructor(opts: {
    status: number;
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
    requestId?: string | null;
  }) {
    super(opts.message);
    this.status = opts.status;
    this.code = opts.code;
    this.details = opts.details ?? [];
    this.requestId = opts.requestId ?? null;
  }
}

/** 400: the request's body, query or header is wrong; `details` names each field at fault. */
export class ValidationError extends RoutekitError {
  override name = "ValidationError";
}
/** 401: no credential, a bad or revoked key, or two-factor sign-in needed. */
export class AuthenticationError extends RoutekitError {
  override name = "AuthenticationError";
}
/** 402: the account has not paid, or reached its spend cap. */
export class PaymentRequiredError extends RoutekitError {
  override name = "PaymentRequiredError";
}
/** 403: the key's role or scope, a suspended account, or a limit. */
export class PermissionError extends RoutekitError {
  override name = "PermissionError";
}
/** 404: no such resource in this account. */
export class NotFoundError extends RoutekitError {
  override name = "NotFoundError";
}
/** 409: the resource's state refuses it (a number taken, a call no longer live, the last owner, …). */
export class ConflictError extends RoutekitError {
  override name = "ConflictError";
}
/** 422: an Idempotency-Key reused with another request. */
export class IdempotencyError extends RoutekitError {
  override name = "IdempotencyError";
}
/** 429: too many requests or calls; `retryAfter` is the seconds the service asked to wait (null if none). */
export class RateLimitError extends RoutekitError {
  override name = "RateLimitError";
  readonly retryAfter: number | null;
  constructor(opts: ConstructorParameters<typeof RoutekitError>[0] & { retryAfter: number | null }) {
    super(opts);
    this.retryAfter = opts.retryAfter;
  }
}
/** 5xx: the service or a provider behind it failed; worth retrying later. */
export class ServerError extends RoutekitError {
  override name = "ServerError";
}

/** No answer from the service: a refused connection, DNS, a reset, a time-out or an abort. Never an HTTP status. */
export class RoutekitConnectionError extends Error {
  override name = "RoutekitConnectionError";
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: "VALIDATION_FAILED",
  401: "UNAUTHORIZED",
  402: "PAYMENT_REQUIRED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  413: "PAYLOAD_TOO_LARGE",
  422: "IDEMPOTENCY_KEY_REUSED",
  429: "RATE_LIMITED",
  502: "PROVIDER_UNAVAILABLE",
  503: "SERVICE_UNAVAILABLE",
};

function isEnvelope(body: unknown): body is Envelope {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === "string" && typeof error.message === "string";
}

/** The typed error for a non-2xx answer; an answer without the envelope (a proxy's page) gets a code from its status. */
export function errorFromResponse(response: Response, body: unknown): RoutekitError {
  const status = response.status;
  const envelope = isEnvelope(body) ? body.error : null;
  const opts = {
    status,
    code: envelope?.code ?? CODE_BY_STATUS[status] ?? "INTERNAL",
    message: envelope?.message ?? `HTTP ${status} ${response.statusText}`.trim(),
    details: envelope?.details,
    requestId: response.headers.get("x-request-id"),
  };
  if (status === 429) {
    const header = response.headers.get("retry-after");
    const seconds = header === null || header.trim() === "" ? Number.NaN : Number(header);
    return new RateLimitError({ ...opts, retryAfter: Number.isFinite(seconds) && seconds >= 0 ? seconds : null });
  }
  if (status >= 500) return new ServerError(opts);
  const Family = {
    400: ValidationError,
    401: AuthenticationError,
    402: PaymentRequiredError,
    403: PermissionError,
    404: NotFoundError,
    409: ConflictError,
    422: IdempotencyError,
  }[status];
  return Family ? new Family(opts) : new RoutekitError(opts);
}
