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

export function newEventId(): string {
  return `evt_${randomBytes(16).toString("base64url")}`;
}

/** Members left undefined are dropped, so receivers see only what applies. */
export function buildEvent(type: EventType, data: EventData, now: Date = new Date()): EventEnvelope {
  const clean = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined)) as EventData;
  return { id: newEventId(), type, createdAt: now.toISOString(), data: clean };
}
