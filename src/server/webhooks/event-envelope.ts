import { randomBytes } from "node:crypto";
import type { CallDirection, CallEndReason, TakenOverBy } from "../../shared/schemas/enums";
import type { EventType } from "../../shared/schemas/events";
import type { AlertData } from "../../shared/schemas/alerts";

/** docs/decisions.md §8: the one shape of every event we send. */
export type { EventType };

export type EventData = {
  callSid: string;
  direction: CallDirection;
  from: string;
  to: string;
  phoneNumberId: string | null;
  metadata?: Record<string, unknown>;
  status?: string;
  durationSeconds?: number;
  billedMinutes?: number;
  costBreakdown?: Record<string, unknown>;
  answeredBy?: string;
  error?: { code: string; message: string };
  /** call.started sent to a fallback URL: why the primary's answer could not be used (docs/decisions.md §12). */
  fallback?: { reason: string; primaryUrl: string };
  /** call.error after a failed primary: what decided the call instead (docs/decisions.md §22). */
  takenOverBy?: TakenOverBy;
  /** call.ended: why the call ended (docs/decisions.md §14), with Twilio's carrier codes, null when it sent none (§22). */
  endReason?: CallEndReason;
  sipResponseCode?: number | null;
  errorCode?: number | null;
  /** Only on sample events from POST /api/webhook-deliveries/test. */
  test?: true;
  /** call.started to a number's shadow backend (docs/decisions.md §23). */
  shadow?: true;
  /** call.started sent again by POST /api/calls/{callSid}/replay, with the webhook-id it first had (§23). */
  replay?: true;
  originalEventId?: string;
};

/** docs/decisions.md §13, §22: the data of transfer and recording events (webhooks/control-events.ts). */
export type ControlEventData = { callSid: string; phoneNumberId?: string | null } & Record<string, unknown>;

/** docs/decisions.md §17, §22: usage.threshold_reached, about the month, with the call that crossed it. */
export type UsageThresholdEventData = {
  threshold: number;
  monthlyBudget: number;
  spent: number;
  month: string;
  callSid: string;
  phoneNumberId: string | null;
};

export type EventEnvelope = {
  id: string;
  type: EventType;
  createdAt: string;
  data: EventData | ControlEventData | UsageThresholdEventData;
};

/**
 * Random bytes fetched 4 KiB at a time and handed out 16 per id: one
 * randomBytes(16) per event cost about 1 % of a voice request's CPU (its own
 * buffer and call into the CSPRNG each time), as crypto.randomUUID's own cache
 * avoids. The bytes are the same CSPRNG's, each used once.
 */
const ID_BYTES = 16;
const ID_POOL_BYTES = 4096;
// Per module graph: random bytes, each used once, whichever graph draws them.
let idPool = Buffer.alloc(0);
// Per module graph: where the next id's bytes are taken from `idPool`.
let idOffset = 0;

export function newEventId(): string {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_POOL_BYTES);
    idOffset = 0;
  }
  const id = idPool.toString("base64url", idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return `evt_${id}`;
}

/** Members left undefined are dropped, so receivers see only what applies. */
export function buildEvent(
  type: EventType,
  data: EventData | ControlEventData | UsageThresholdEventData | AlertData,
  now: Date = new Date(),
): EventEnvelope {
  const clean = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as EventData;
  return { id: newEventId(), type, createdAt: now.toISOString(), data: clean };
}
