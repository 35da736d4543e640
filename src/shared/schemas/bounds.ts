import { z } from "zod";

/**
 * The bounds the API states in its OpenAPI document, spelled once (docs/api.md "Bounds"). Each is
 * the limit the server enforces on an input, or the most the server can produce in an output: the
 * routes validate their outputs against these schemas, so an output past its bound is a 500 and a
 * test failure, never a document that says less than the truth.
 */

/** Every request body (the input boundary and the engine's route refuse more: 413). */
export const REQUEST_BODY_MAX_BYTES = 64 * 1024;

/**
 * What the engine keeps of a field Twilio sends it (CallSid, From, To, AnsweredBy, DialCallStatus …):
 * the engine checks the statuses, durations and codes it acts on, and stores the rest as sent, so the
 * bound of such a field is the form body's (a request without a Twilio connection is not signed).
 */
const TWILIO_FIELD_MAX_CHARS = REQUEST_BODY_MAX_BYTES;

/** Ids: the database's are 25 characters (`c` + 24 base-36 digits); an id given to the API is at most 64. */
export const ID_MAX_CHARS = 64;
/** An ISO 8601 time: ours are `toISOString()` (24 characters); one given may carry nanoseconds and an offset. */
export const ISO_TIME_MAX_CHARS = 35;
/** Callback URLs, the recording URL the engine keeps and every URL the server builds from the public base URL. */
export const URL_MAX_CHARS = 2048;
/** E.164: `+` and at most 15 digits. */
export const E164_MAX_CHARS = 16;
/** A name at Twilio (an account's or number's FriendlyName: Twilio keeps up to 64 characters; we show no more). */
export const TWILIO_NAME_MAX_CHARS = 64;
/** Twilio's SIDs: two letters and 32 hex digits. */
export const TWILIO_SID_CHARS = 34;
/** An email address (RFC 5321's path limit). */
export const EMAIL_MAX_CHARS = 254;
/** A cursor of a keyset page, as the server makes it and accepts it back. */
export const CURSOR_MAX_CHARS = 200;
/** A sentence the server writes for people (an error's message, how to fix an alert, a provider's message it keeps). */
export const MESSAGE_MAX_CHARS = 1024;
/** A transfer's target as given: an E.164 number or a sip: URI. */
export const TRANSFER_TARGET_MAX_CHARS = 256;
/** An IP address as the audit log keeps it (an IPv6 address in full is 45 characters). */
export const IP_MAX_CHARS = 45;
/** Our login JWT: three base64url parts of a small header, ids and times. */
export const TOKEN_MAX_CHARS = 2048;
/** An API key: `rtk_` + 43 base62 characters + a 6-character checksum (auth/api-key-format.ts); its prefix is 12. */
export const API_KEY_CHARS = 4 + 43 + 6;
export const API_KEY_PREFIX_CHARS = 12;
/** A URL Stripe gives (Checkout, the billing portal): Stripe's own limit on its strings. */
export const STRIPE_URL_MAX_CHARS = 5000;
/** PUBLIC_BASE_URL (env.ts): short enough that every URL built on it (the engine URL, links) stays within URL_MAX_CHARS. */
export const PUBLIC_BASE_URL_MAX_CHARS = 1024;
/** A TOTP secret (base32 of 20 bytes) and the otpauth:// URL that carries it with the person's address. */
export const TOTP_SECRET_CHARS = 32;
export const OTPAUTH_URL_MAX_CHARS = 1024;
/** A webhook endpoint's description. */
export const ENDPOINT_DESCRIPTION_MAX_CHARS = 200;
/** An API key's label. */
export const API_KEY_LABEL_MAX_CHARS = 100;
/** A company name given at registration. */
export const COMPANY_NAME_MAX_CHARS = 200;
/** A short code or name the server writes for programs (error codes, answer forms, outcome names). */
export const CODE_MAX_CHARS = 64;
/** Stored TwiML: the TwiML a call keeps and a number's stored fallback (16 KiB). */
export const STORED_TWIML_MAX_CHARS = 16 * 1024;
/** TwiML the server renders or sends to Twilio (check-twiml's document limit, 64 KiB). */
export const TWIML_MAX_CHARS = 64 * 1024;
/** The excerpt of a backend's answer kept on a call.started attempt (4 KiB; queued events keep 1 KiB). */
export const RESPONSE_EXCERPT_MAX_CHARS = 4 * 1024;
/** A webhook signing secret: `whsec_` + base64 of 32 random bytes (crypto/secret-box.ts). */
export const SECRET_MAX_CHARS = 6 + 44;
/** An outbound call's metadata, as JSON (POST /api/outbound), sent back in its events. */
export const METADATA_MAX_BYTES = 4096;
/** Keys of a free-form object the server shows (details, metadata, a delivery's payload). */
const OBJECT_KEY_MAX_CHARS = 256;

/** The error envelope's `details`: one per field at fault, the first 100 (a list of 50 bad actions says each). */
export const ERROR_DETAILS_MAX_ITEMS = 100;
/** Retry-After, in seconds: the slowest bucket refills a token in a minute; the error mapper never says more than an hour. */
export const RETRY_AFTER_MAX_SECONDS = 3600;
/** Our x-request-id: the client's when valid ([A-Za-z0-9._:-]{1,128}), else ours (a UUID). */
export const REQUEST_ID_MAX_CHARS = 128;

/** An Idempotency-Key: 1–255 printable ASCII characters, as Stripe accepts. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;
export const ZIdempotencyKey = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX_CHARS)
  .regex(/^[\x20-\x7E]+$/);

/** RateLimit and RateLimit-Policy: `"<policy>";r=<n>;t=<n>`, a bucket's name and two small integers. */
export const RATE_LIMIT_HEADER_MAX_CHARS = 128;
/** One Standard Webhooks signature: `v1,` and the base64 of an HMAC-SHA256. */
export const WEBHOOK_SIGNATURE_CHARS = 3 + 44;

/** Actions in one answer, fallback or lastResort (docs/decisions.md §12). */
export const ACTIONS_MAX_ITEMS = 50;

/** Pages: a page holds at most this many rows (a larger `limit` is clamped or refused). */
export const PAGE_MAX_ITEMS = 100;
/** A delivery's detail shows its newest attempts, at most this many (retries and redeliveries). */
export const DELIVERY_ATTEMPTS_MAX_ITEMS = 100;
/** POST /api/webhook-deliveries/replay queues at most this many a call (docs/decisions.md §22). */
export const REPLAY_MAX_DELIVERIES = 1000;
/** GET /api/usage/daily: at most this many days. */
export const DAILY_USAGE_MAX_DAYS = 90;
/** What an account may hold: active API keys (services/api-keys). */
export const API_KEYS_MAX_ITEMS = 100;
/** Numbers (verified or not; 403 NUMBER_LIMIT_REACHED past it): GET /api/phone-numbers lists them all. */
export const PHONE_NUMBERS_MAX_ITEMS = 1000;
/** Members and pending invitations together (403 MEMBER_LIMIT_REACHED past it). */
export const MEMBERS_MAX_ITEMS = 100;
/** Twilio's numbers and subaccounts read for GET /api/twilio-connection/numbers: the first this many. */
export const TWILIO_LIST_MAX_ITEMS = 1000;

/** What GET /api/calls/{callSid} reads of a call (services/calls/calls.ts), and so what its timeline can hold. */
export const CALL_READ = { requests: 200, commands: 200, recordings: 100, deliveries: 100, startTries: 3 } as const;
export const CALL_RECORDINGS_MAX_ITEMS = CALL_READ.recordings;
/**
 * The voice request, the requests, each delivery's tries, each command and its transfer's end,
 * each recording, and the TwiML, a duration clamped and the usage.
 */
export const CALL_TIMELINE_MAX_ITEMS =
  1 +
  CALL_READ.requests +
  CALL_READ.deliveries * CALL_READ.startTries +
  CALL_READ.commands * 2 +
  CALL_READ.recordings +
  3;

/** Twilio's call durations the engine accepts (a day), in seconds. */
export const CALL_DURATION_MAX_SECONDS = 86_400;
/** What a JSON number of ours can hold exactly: counts and sums over an account's lifetime. */
export const SAFE_INT_MAX = Number.MAX_SAFE_INTEGER;
const INT32_MAX = 2_147_483_647;
/** The largest value of an Int column (PostgreSQL's integer): what a stored count or time in ms can reach. */
export const DB_INT_MAX = INT32_MAX;

/** A string of at most `max` characters. */
export const boundedString = (max: number) => z.string().max(max);

/**
 * An integer from `min` to `max`, with the JSON Schema `format` its range needs (int32 when it fits,
 * else int64): generators then pick a type that holds every value.
 */
export function boundedInt(min: number, max: number) {
  return z
    .number()
    .int()
    .min(min)
    .max(max)
    .meta({ format: integerFormat(min, max) });
}

/** int32 when every value from `min` to `max` fits, else int64. */
export const integerFormat = (min: number, max: number) =>
  min >= -INT32_MAX - 1 && max <= INT32_MAX ? "int32" : "int64";

/** A count or sum that only grows: 0 up to what a JSON number holds exactly. */
export const countInt = () => boundedInt(0, SAFE_INT_MAX);

/** A field as Twilio sent it to the engine (see TWILIO_FIELD_MAX_CHARS). */
export const twilioField = () => boundedString(TWILIO_FIELD_MAX_CHARS);
/** A short code or name the server wrote (CODE_MAX_CHARS). */
export const outputCode = () => boundedString(CODE_MAX_CHARS);
/** A sentence the server wrote (MESSAGE_MAX_CHARS). */
export const outputMessage = () => boundedString(MESSAGE_MAX_CHARS);
/** A URL the server checked or built (URL_MAX_CHARS). */
export const outputUrl = () => boundedString(URL_MAX_CHARS);
/** Billed minutes of one call: ceil(CALL_DURATION_MAX_SECONDS / 60). */
export const callMinutesInt = () => boundedInt(0, Math.ceil(CALL_DURATION_MAX_SECONDS / 60));
/** Seconds of one call (or one leg of it). */
export const callSecondsInt = () => boundedInt(0, CALL_DURATION_MAX_SECONDS);
/** An HTTP status a backend or Twilio answered with. */
export const httpStatusInt = () => boundedInt(100, 599);
/** Milliseconds the server measured (a monotonic clock's difference), kept in an Int column. */
export const latencyMsInt = () => boundedInt(0, DB_INT_MAX);

/** An id the server made. */
export const outputId = () => boundedString(ID_MAX_CHARS).describe("Opaque identifier");
/** A free-form object the server shows: string keys, any values (the whole is within its row or body's bound). */
export const boundedRecord = (maxKeyChars: number = OBJECT_KEY_MAX_CHARS) =>
  z.record(boundedString(maxKeyChars), z.unknown());
