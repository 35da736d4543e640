import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";

/** The one table of error codes and their HTTP statuses (docs/decisions.md §3). */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  PROVIDER_REJECTED: 400,
  UNAUTHORIZED: 401,
  TWO_FACTOR_REQUIRED: 401,
  PAYMENT_REQUIRED: 402,
  SPEND_LIMIT_REACHED: 402,
  ACCOUNT_SUSPENDED: 403,
  NUMBER_NOT_OWNED: 403,
  NUMBER_LIMIT_REACHED: 403,
  ENDPOINT_LIMIT_REACHED: 403,
  MEMBER_LIMIT_REACHED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NUMBER_TAKEN: 409,
  EMAIL_TAKEN: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  CALL_NOT_LIVE: 409,
  CALL_NOT_CONTROLLABLE: 409,
  LAST_OWNER: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  CONCURRENCY_LIMIT: 429,
  INTERNAL: 500,
  PROVIDER_UNAVAILABLE: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/**
 * The tRPC code of each status above, so a tRPC client (the dashboard) reads the
 * same class of failure as the HTTP status: a 429 is TOO_MANY_REQUESTS, not an
 * internal error. Each is the code whose own status in tRPC is that status
 * (tests/unit/trpc-error-codes.test.ts); a new status needs its row here.
 */
export const TRPC_CODE_OF_STATUS = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  402: "PAYMENT_REQUIRED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
} as const satisfies Record<ErrorStatus, TRPC_ERROR_CODE_KEY>;

export const DEFAULT_MESSAGE: Record<ErrorCode, string> = {
  VALIDATION_FAILED: "The request is invalid.",
  PROVIDER_REJECTED: "The telephony provider rejected the request.",
  UNAUTHORIZED: "Missing or invalid API key or credentials.",
  TWO_FACTOR_REQUIRED:
    "This user signs in with two-factor: send `code` (the 6 digits from the authenticator app) or a `recoveryCode`.",
  PAYMENT_REQUIRED: "Complete checkout to activate your account.",
  SPEND_LIMIT_REACHED:
    "This month's usage cost has reached the monthly budget and the hard cap is on; raise the budget or turn the hard cap off (PUT /api/account/limits).",
  ACCOUNT_SUSPENDED: "Your account is suspended; update your payment to resume service.",
  NUMBER_NOT_OWNED: "This phone number belongs to another account.",
  NUMBER_LIMIT_REACHED: "This account holds as many unverified numbers as it may; connect Twilio to register more.",
  ENDPOINT_LIMIT_REACHED: "This account has 10 webhook endpoints, the most it may; delete one to add another.",
  MEMBER_LIMIT_REACHED:
    "This account has 100 members and pending invitations, the most it may; remove a member or revoke an invitation first.",
  FORBIDDEN: "The request is not signed by Twilio for this account.",
  NOT_FOUND: "Not found.",
  METHOD_NOT_ALLOWED: "Method not allowed.",
  NUMBER_TAKEN: "This phone number is already registered.",
  EMAIL_TAKEN: "An account with this email already exists.",
  IDEMPOTENCY_IN_PROGRESS: "A request with this Idempotency-Key is still running; retry once it has finished.",
  CALL_NOT_LIVE: "The call is not live: it has ended, or it has not been answered yet.",
  CALL_NOT_CONTROLLABLE:
    "Routekit holds no Twilio credentials for this call; connect your Twilio account (PUT /api/twilio-connection) to make every call controllable.",
  LAST_OWNER: "An account keeps at least one owner: make another member an owner first.",
  IDEMPOTENCY_KEY_REUSED: "This Idempotency-Key was used with another request body; use a new key for a new request.",
  PAYLOAD_TOO_LARGE: "The request body is larger than 64 KiB.",
  RATE_LIMITED: "Too many requests; retry later.",
  CONCURRENCY_LIMIT: "The account already has maxConcurrentCalls calls live; try again when one ends.",
  INTERNAL: "Internal server error.",
  PROVIDER_UNAVAILABLE: "The telephony provider could not be reached.",
  SERVICE_UNAVAILABLE: "The service is not ready.",
};
