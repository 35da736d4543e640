/**
 * docs/decisions.md §23: POST /api/calls/{callSid}/replay. A past inbound call's `call.started`, as it was
 * first sent (its `data`, with `data.replay = true` and `data.originalEventId`), goes again as a new event
 * (a new webhook-id, signed with the account's current secret) to the URL given, with the call's own
 * answer timeout and no retry; its answer is checked as the engine checks any (start-answer.ts) and
 * compared with how the call was decided (compare-twiml.ts). Nothing reaches Twilio, nothing is billed or
 * counted, and the call itself does not change: the request is in the delivery log (kind `replay`) and the
 * audit log, not on the call's timeline.
 *
 * Which calls: the account's inbound calls of the last 30 days whose call.started was sent (a call
 * rejected before any backend was asked has none). An outbound call, an older or unknown one, or another
 * account's, is 404 (another account's existence is not revealed).
 */
import { db } from "../../db/client";
import { sqlTransaction } from "../../db/sql-transaction";
import { env } from "../../env";
import { AppError } from "../../errors/app-error";
import { enforceRateLimits, POLICIES } from "../../rate-limit/rate-limiter";
import { buildEvent, type EventData } from "../../webhooks/event-envelope";
import { signingSecrets } from "../../webhooks/webhook-secrets";
import type { AnswerPolicy } from "../../../shared/schemas/answer-policy";
import { compareAnswers } from "../answers/compare-twiml";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { engineAccounts } from "../calls/call-row";
import { askSecondBackend } from "./ask-second-backend";
import { insertSecondRequests } from "./record-shadow";
import { SHADOW_KEPT_DAYS } from "./shadow-report";

const DAY_MS = 24 * 3600_000;

export async function replayCall(opts: {
  accountId: string;
  callSid: string;
  onCallStartUrl: string;
  origin: AuditOrigin;
}) {
  await enforceRateLimits([{ key: `call-replay:${opts.accountId}`, policy: POLICIES.callReplay }]);
  const notFound = () =>
    new AppError("NOT_FOUND", "No such inbound call of the last 30 days whose call.started was sent.");
  const call = await db().call.findFirst({
    where: {
      callSid: opts.callSid,
      accountId: opts.accountId,
      direction: "inbound",
      createdAt: { gte: new Date(Date.now() - SHADOW_KEPT_DAYS * DAY_MS) },
    },
    select: { callSid: true, answer: true, twiml: true, answerPolicy: true },
  });
  if (!call) throw notFound();
  const original = await db().webhookDelivery.findFirst({
    where: {
      accountId: opts.accountId,
      callSid: call.callSid,
      eventType: "call.started",
      kind: "event",
      synchronous: true,
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { eventId: true, payload: true },
  });
  const account = (await engineAccounts([opts.accountId])).get(opts.accountId);
  if (!original || !account) throw notFound();
  const first = JSON.parse(original.payload) as { data?: EventData };
  const event = buildEvent("call.started", {
    ...(first.data as EventData),
    replay: true,
    originalEventId: original.eventId,
  });
  const payload = JSON.stringify(event);
  const policy = (call.answerPolicy ?? {}) as AnswerPolicy;
  const replayed = await askSecondBackend({
    url: opts.onCallStartUrl,
    event,
    body: payload,
    // The account's current secret only: a replay is a new event, signed as of now.
    secrets: signingSecrets(account).slice(0, 1),
    timeoutMs: policy.answerTimeoutMs ?? env().callbackStartTimeoutMs,
  });
  const originalSide = { answer: call.answer ?? "unknown", twiml: call.twiml };
  const outcome = compareAnswers(originalSide, replayed);
  const [deliveryId] = await sqlTransaction(async (trx) => {
    const ids = await insertSecondRequests(trx, [
      {
        kind: "replay",
        accountId: opts.accountId,
        callSid: call.callSid,
        url: opts.onCallStartUrl,
        event,
        payload,
        answer: replayed,
        outcome,
      },
    ]);
    // The URL's host only: its path or query may carry a token of the customer's.
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "call.replayed",
      target: { type: "call", id: call.callSid },
      details: { host: new URL(opts.onCallStartUrl).host, outcome, eventId: event.id },
    });
    return ids;
  });
  return {
    replay: {
      outcome,
      original: originalSide,
      replayed: {
        answer: replayed.answer,
        twiml: replayed.twiml,
        latencyMs: replayed.latencyMs,
        ...(replayed.error !== undefined && { error: replayed.error }),
      },
      deliveryId: deliveryId!,
      eventId: event.id,
    },
  };
}
