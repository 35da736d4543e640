/** The one table of error codes and their HTTP statuses (decisions §3). */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  PROVIDER_REJECTED: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  ACCOUNT_SUSPENDED: 403,
  NUMBER_NOT_OWNED: 403,
  INVALID_SIGNATURE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NUMBER_TAKEN: 409,
  EMAIL_TAKEN: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  PROVIDER_UNAVAILABLE: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const DEFAULT_MESSAGE: Record<ErrorCode, string> = {
  VALIDATION_FAILED: "The request is invalid.",
  PROVIDER_REJECTED: "The telephony provider rejected the request.",
  UNAUTHORIZED: "Missing or invalid API key or credentials.",
  PAYMENT_REQUIRED: "Complete checkout to activate your account.",
  ACCOUNT_SUSPENDED: "Your account is suspended; update your payment to resume service.",
  NUMBER_NOT_OWNED: "This phone number belongs to another account.",
  INVALID_SIGNATURE: "The request signature is invalid.",
  NOT_FOUND: "Not found.",
  METHOD_NOT_ALLOWED: "Method not allowed.",
  NUMBER_TAKEN: "This phone number is already registered.",
  EMAIL_TAKEN: "An account with this email already exists.",
  PAYLOAD_TOO_LARGE: "The request body is larger than 64 KiB.",
  RATE_LIMITED: "Too many requests; retry later.",
  INTERNAL: "Internal server error.",
  PROVIDER_UNAVAILABLE: "The telephony provider could not be reached.",
  SERVICE_UNAVAILABLE: "The service is not ready.",
};
