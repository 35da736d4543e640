import { randomBytes } from "node:crypto";
import type { CallDirection } from "../schemas/enums";
import type { EventType } from "../schemas/events";

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
  /** Only on sample events from POST /api/webhook-deliveries/test. */
  test?: true;
};

export type EventEnvelope = { id: string; type: EventType; createdAt: string; data: EventData };

/**
 * Random bytes fetched 4 KiB at a time and handed out 16 per id: one
 * randomBytes(16) per event cost about 1 % of a voice request's CPU (its own
 * buffer and call into the CSPRNG each time), as crypto.randomUUID's own cache
 * avoids. The bytes are the same CSPRNG's, each used once.
 */
const ID_BYTES = 16;
const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
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
export function buildEvent(type: EventType, data: EventData, now: Date = new Date()): EventEnvelope {
  const clean = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as EventData;
  return { id: newEventId(), type, createdAt: now.toISOString(), data: clean };
}
