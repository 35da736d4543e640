/**
 * @routekit/sdk (docs/decisions.md §19): the typed client, event verification, answer builders and errors.
 * Every named schema of the OpenAPI document is exported as a type of the same name.
 */
export type * from "./generated/schemas.js";
export {
  type Action,
  type Answer,
  answer,
  type DialAction,
  dial,
  type GatherAction,
  type GatherOptions,
  gather,
  type HangupAction,
  hangup,
  type PauseAction,
  type PlayAction,
  pause,
  play,
  type RecordAction,
  type RejectAction,
  record,
  reject,
  type SayAction,
  say,
} from "./answers.js";
export { Routekit } from "./client/routekit.js";
export type { MutationOptions, RequestOptions, RoutekitOptions } from "./client/transport.js";
export {
  AuthenticationError,
  ConflictError,
  type ErrorCode,
  type ErrorDetail,
  IdempotencyError,
  NotFoundError,
  PaymentRequiredError,
  PermissionError,
  RateLimitError,
  RoutekitConnectionError,
  RoutekitError,
  ServerError,
  ValidationError,
} from "./errors.js";
export { EVENT_TYPES } from "./generated/events.js";
export { OPERATIONS } from "./generated/resources.js";
export type { components, operations, paths, webhooks } from "./generated/openapi.js";
export type { EventOf, EventType, RoutekitEvent } from "./webhooks/events.js";
export {
  type VerifyOptions,
  verifyEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from "./webhooks/verify-event.js";
