/**
 * docs/decisions.md §23: what a shadow or a replay leaves behind. Each request is a delivery of its own
 * kind (`shadow`, `replay`) with its one attempt: synchronous, so never queued, retried or redelivered
 * (webhook-deliveries.ts refuses those), and written here rather than by the delivery worker, so no
 * endpoint health or alert ever counts it. A mirrored call also gets its ShadowCall row, the report's
 * source; calls not mirrored for the in-flight bound are a running count per number and UTC day.
 */
import { newDatabaseId } from "../../db/database-id";
import { sqlTransaction, type SqlTransaction } from "../../db/sql-transaction";
import type { EventEnvelope } from "../../webhooks/event-envelope";
import type { DeliveryKind } from "../../../shared/schemas/webhook-deliveries";
import type { ShadowOutcome } from "../../../shared/schemas/shadow";
import {
  RESPONSE_EXCERPT_MAX_CHARS as EXCERPT_MAX_CHARS,
  STORED_TWIML_MAX_CHARS as TWIML_MAX_CHARS,
} from "../../../shared/schemas/bounds";
import type { SecondAnswer } from "./ask-second-backend";

/** As the call log keeps a call.started answer (engine/call-log.ts). */
const cap = (s: string | null | undefined, n: number) => (s == null ? null : s.length > n ? s.slice(0, n) : s);

/** One call.started sent to a backend whose answer was only compared. */
export type SecondRequest = {
  kind: Exclude<DeliveryKind, "event">;
  accountId: string;
  callSid: string;
  url: string;
  event: EventEnvelope;
  payload: string;
  answer: SecondAnswer;
  outcome: ShadowOutcome;
};

/** The primary's side of a mirrored call: its answer form (or why not), its TwiML and how long it took. */
export type PrimarySide = { answer: string; twiml: string | null; latencyMs: number };

export type ShadowResult = SecondRequest & { phoneNumberId: string; startedAt: Date; primary: PrimarySide };

export type ShadowSkips = { phoneNumberId: string; accountId: string; day: string; skipped: number };

/** The deliveries and attempts of these requests; the delivery's ids in the same order. */
export async function insertSecondRequests(trx: SqlTransaction, requests: SecondRequest[]): Promise<string[]> {
  if (!requests.length) return [];
  const ids = requests.map(() => newDatabaseId());
  await trx
    .insertInto("WebhookDelivery")
    .values(
      requests.map((r, i) => {
        const delivered = r.answer.twiml !== null;
        return {
          id: ids[i]!,
          accountId: r.accountId,
          eventId: r.event.id,
          eventType: "call.started",
          callSid: r.callSid,
          url: r.url,
          payload: r.payload,
          status: delivered ? ("DELIVERED" as const) : ("FAILED" as const),
          attemptCount: 1,
          cycleAttempts: 1,
          lastAttemptAt: r.answer.at,
          deliveredAt: delivered ? r.answer.at : null,
          createdAt: r.answer.at,
          synchronous: true,
          // Never used: how its answer compared with the call's (same, different, failed).
          answerUse: r.outcome,
          kind: r.kind,
        };
      }),
    )
    .execute();
  await trx
    .insertInto("WebhookAttempt")
    .values(
      requests.map((r, i) => ({
        id: newDatabaseId(),
        deliveryId: ids[i]!,
        attemptedAt: r.answer.at,
        url: r.url,
        statusCode: r.answer.statusCode,
        latencyMs: Math.max(0, Math.round(r.answer.latencyMs)),
        responseExcerpt: cap(r.answer.responseBody, EXCERPT_MAX_CHARS),
        error: cap(r.answer.error, 1024),
        role: r.kind,
        outcome: r.answer.answer,
      })),
    )
    .execute();
  return ids;
}

/** A batch of mirrored calls and skip counts, in one transaction (engine/shadow.ts writes them after the answers). */
export function recordShadowResults(results: ShadowResult[], skips: ShadowSkips[]): Promise<void> {
  return sqlTransaction(async (trx) => {
    await insertSecondRequests(trx, results);
    if (results.length)
      await trx
        .insertInto("ShadowCall")
        .values(
          results.map((r) => ({
            id: newDatabaseId(),
            accountId: r.accountId,
            phoneNumberId: r.phoneNumberId,
            callSid: r.callSid,
            startedAt: r.startedAt,
            outcome: r.outcome,
            primaryAnswer: r.primary.answer,
            primaryTwiml: cap(r.primary.twiml, TWIML_MAX_CHARS),
            primaryLatencyMs: Math.max(0, Math.round(r.primary.latencyMs)),
            shadowAnswer: r.answer.answer,
            shadowTwiml: cap(r.answer.twiml, TWIML_MAX_CHARS),
            shadowLatencyMs: Math.max(0, Math.round(r.answer.latencyMs)),
            shadowError: cap(r.answer.error, 1024),
          })),
        )
        .execute();
    if (skips.length)
      await trx
        .insertInto("ShadowSkip")
        .values(skips)
        .onConflict((oc) =>
          oc.columns(["phoneNumberId", "day"]).doUpdateSet((eb) => ({
            skipped: eb("ShadowSkip.skipped", "+", eb.ref("excluded.skipped")),
          })),
        )
        .execute();
  });
}
