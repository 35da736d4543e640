import type { Call, CallCommand, Prisma, UsageRecord, WebhookAttempt } from "@/generated/prisma/client";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import type { TCall, TTimelineEntry } from "../../../shared/schemas/calls";
import type { CostBreakdown } from "../usage/billed-minutes";
import { controlTimeline, recordingDto } from "./control/control-timeline";
import type { CommandEntry } from "./control/run-command";
import { decodeKeysetCursor, encodeKeysetCursor } from "../pagination/keyset-cursor";
import type { EventType } from "../../../shared/schemas/events";
import { CALL_ANSWERS, CALL_END_REASONS, type CallDirection, type CallEndReason } from "../../../shared/schemas/enums";
import { CALL_READ } from "../../../shared/schemas/bounds";

type CallStatus = TCall["status"];
type CallAnswer = NonNullable<TCall["answer"]>;
const ANSWERS = new Set<string>(CALL_ANSWERS);
const END_REASON_SET = new Set<string>(CALL_END_REASONS);

function callDto(c: Call, usage: UsageRecord | undefined): TCall {
  return {
    callSid: c.callSid,
    direction: c.direction === "outbound" ? "outbound" : "inbound",
    from: c.fromNumber,
    to: c.toNumber,
    phoneNumberId: c.phoneNumberId,
    // The engine stores only the statuses the API shows (schemas/enums.ts shownCallStatus).
    status: c.status as CallStatus,
    startedAt: c.createdAt.toISOString(),
    endedAt: c.endedAt?.toISOString() ?? null,
    durationSeconds: c.durationSeconds,
    billedMinutes: usage?.billedMinutes ?? (c.endedAt ? 0 : null),
    costBreakdown: usage ? (usage.costBreakdown as CostBreakdown) : null,
    answeredBy: c.answeredBy,
    answer: c.answer && ANSWERS.has(c.answer) ? (c.answer as CallAnswer) : null,
    error: c.errorCode ? { code: c.errorCode, message: c.errorMessage ?? "" } : null,
    endReason: c.endReason && END_REASON_SET.has(c.endReason) ? (c.endReason as CallEndReason) : null,
    sipResponseCode: c.sipResponseCode,
    errorCode: c.twilioErrorCode,
    test: c.test,
  };
}

async function usageBySid(accountId: string, sids: string[]): Promise<Map<string, UsageRecord>> {
  if (!sids.length) return new Map();
  const rows = await db().usageRecord.findMany({ where: { accountId, callSid: { in: sids } } });
  return new Map(rows.map((u) => [u.callSid, u]));
}

export type ListCallsOptions = {
  accountId: string;
  status?: CallStatus;
  direction?: CallDirection;
  phoneNumberId?: string;
  callSid?: string;
  /** One or more CallAnswer values, comma-separated (schemas/calls.ts checked them). */
  answer?: string;
  since?: string;
  until?: string;
  /** "true": only simulated calls (docs/decisions.md §21); otherwise only real ones. */
  test?: "true" | "false";
  limit: number;
  cursor?: string;
};

/** Newest first, one keyset page (pagination/keyset-cursor.ts): the index on (accountId, createdAt desc, id desc) serves any depth. */
export async function listCalls(opts: ListCallsOptions) {
  const after = opts.cursor ? decodeKeysetCursor(opts.cursor) : null;
  const createdAt: Prisma.DateTimeFilter = {};
  if (opts.since) createdAt.gte = new Date(opts.since);
  if (opts.until) createdAt.lt = new Date(opts.until);
  const where: Prisma.CallWhereInput = {
    accountId: opts.accountId,
    test: opts.test === "true",
    ...(opts.status && { status: opts.status === "in-progress" ? { in: ["in-progress", "answered"] } : opts.status }),
    ...(opts.direction && { direction: opts.direction }),
    ...(opts.phoneNumberId && { phoneNumberId: opts.phoneNumberId }),
    ...(opts.callSid && { callSid: opts.callSid }),
    ...(opts.answer && { answer: { in: [...new Set(opts.answer.split(","))] } }),
    ...((opts.since || opts.until) && { createdAt }),
    ...(after && {
      OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
    }),
  };
  const rows = await db().call.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: opts.limit + 1,
  });
  const page = rows.slice(0, opts.limit);
  const usage = await usageBySid(
    opts.accountId,
    page.filter((c) => c.status === "completed").map((c) => c.callSid),
  );
  const last = page[page.length - 1];
  return {
    calls: page.map((c) => callDto(c, usage.get(c.callSid))),
    nextCursor: rows.length > opts.limit && last ? encodeKeysetCursor(last) : null,
  };
}

const MAX_COMMANDS = CALL_READ.commands;

/**
 * A live command's answer shows its own timeline row as the command wrote it: the read beside that
 * write may not see it yet, or (recorded before Twilio was asked) may see it still pending.
 */
function withCommand(commands: CallCommand[], entry: CommandEntry | undefined): CallCommand[] {
  if (!entry) return commands;
  const { outcome, providerStatus, providerCode, providerMessage, providerMs, ownMs } = entry;
  const read = commands.findIndex((c) => c.id === entry.id);
  if (read >= 0)
    return commands.map((c, i) =>
      i === read ? { ...c, outcome, providerStatus, providerCode, providerMessage, providerMs, ownMs } : c,
    );
  return commands.length < MAX_COMMANDS ? [...commands, { ...entry, result: null, resultAt: null }] : commands;
}

/**
 * One call with its timeline, oldest first: Twilio's requests, the `call.started`
 * attempt and the TwiML returned, the events sent, the usage. Another account's
 * call is not found (its existence is not revealed). Every part is read side by
 * side (the call's SID is unique, so its rows are found by it); `also.command` is
 * a live command's own row (see withCommand).
 */
export async function getCall(opts: { accountId: string; callSid: string }, also: { command?: CommandEntry } = {}) {
  const ofCall = { call: { callSid: opts.callSid, accountId: opts.accountId } };
  const [call, requests, commands, recordings, usage, deliveries, attempts] = await Promise.all([
    db().call.findFirst({ where: { callSid: opts.callSid, accountId: opts.accountId } }),
    db().callRequest.findMany({ where: ofCall, orderBy: [{ at: "asc" }, { id: "asc" }], take: CALL_READ.requests }),
    db().callCommand.findMany({ where: ofCall, orderBy: [{ at: "asc" }, { id: "asc" }], take: MAX_COMMANDS }),
    db().callRecording.findMany({
      where: ofCall,
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: CALL_READ.recordings,
    }),
    db().usageRecord.findFirst({ where: { accountId: opts.accountId, callSid: opts.callSid } }),
    // A replay (docs/decisions.md §23) changed nothing of the call: it is in the delivery log, not on the timeline.
    db().webhookDelivery.findMany({
      where: { accountId: opts.accountId, callSid: opts.callSid, kind: { not: "replay" } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: CALL_READ.deliveries,
    }),
    // Only call.started deliveries (synchronous) show their tries, a handful each: read beside their deliveries.
    db().webhookAttempt.findMany({
      where: {
        delivery: { accountId: opts.accountId, callSid: opts.callSid, synchronous: true, kind: { not: "replay" } },
      },
      orderBy: [{ attemptedAt: "desc" }, { id: "desc" }],
    }),
  ]);
  if (!call) throw new AppError("NOT_FOUND", "No such call.");
  // A call.started delivery has up to three tries (primary, retry, fallback URL); a queued one needs its last.
  const triesOf = new Map<string, WebhookAttempt[]>();
  for (const a of attempts) {
    const tries = triesOf.get(a.deliveryId) ?? [];
    if (tries.length < CALL_READ.startTries) triesOf.set(a.deliveryId, [...tries, a]);
  }

  const timeline: (TTimelineEntry & { order: number })[] = [];
  // The voice request the call's answer answered is kept on the call's own row (call-log.ts); older calls have it as a CallRequest.
  if (call.voiceRequestAt !== null)
    timeline.push({
      type: "request",
      at: call.voiceRequestAt.toISOString(),
      kind: "voice",
      callStatus: call.voiceRequestStatus ?? "ringing",
      sequenceNumber: null,
      order: 0,
    });
  for (const r of requests) {
    timeline.push({
      type: "request",
      at: r.at.toISOString(),
      kind: r.kind === "voice" || r.kind === "reconciliation" || r.kind === "closed" ? r.kind : "status",
      callStatus: r.callStatus,
      sequenceNumber: r.sequenceNumber,
      order: 0,
    });
  }
  for (const d of deliveries) {
    if (d.synchronous) {
      const tries = [...(triesOf.get(d.id) ?? [])].reverse();
      tries.forEach((a, i) => {
        timeline.push({
          type: "call.started",
          at: a.attemptedAt.toISOString(),
          deliveryId: d.id,
          // The shadow's try (docs/decisions.md §23) stands beside the primary's; its answer was never used.
          attempt: a.role === "retry" || a.role === "fallback-url" || a.role === "shadow" ? a.role : "primary",
          outcome: a.outcome ?? (i === tries.length - 1 ? d.answerUse : null),
          url: a.url,
          statusCode: a.statusCode,
          latencyMs: a.latencyMs,
          responseExcerpt: a.responseExcerpt,
          error: a.error,
          answerUse: d.answerUse,
          order: 1 + i / 10,
        });
      });
      continue;
    }
    timeline.push({
      type: "event",
      at: d.createdAt.toISOString(),
      deliveryId: d.id,
      eventType: d.eventType as EventType,
      url: d.url,
      status: d.status,
      attemptCount: d.attemptCount,
      order: 3,
    });
  }
  if (call.twiml !== null) {
    // The TwiML went back when the answer came: right after the last call.started attempt, or with the reject.
    const started = timeline.filter((e) => e.type === "call.started" && e.attempt !== "shadow").pop();
    const at = started
      ? new Date(Date.parse(started.at) + (started.type === "call.started" ? started.latencyMs : 0))
      : call.createdAt;
    timeline.push({ type: "twiml", at: at.toISOString(), twiml: call.twiml, order: 2 });
  }
  if (call.reportedDurationSeconds !== null && call.endedAt !== null) {
    timeline.push({
      type: "duration-clamped",
      at: call.endedAt.toISOString(),
      reportedSeconds: call.reportedDurationSeconds,
      billedSeconds: call.durationSeconds ?? 0,
      order: 0.5,
    });
  }
  if (usage) {
    timeline.push({
      type: "usage",
      at: usage.createdAt.toISOString(),
      billedMinutes: usage.billedMinutes,
      costBreakdown: usage.costBreakdown as CostBreakdown,
      order: 4,
    });
  }
  timeline.push(...controlTimeline(withCommand(commands, also.command), recordings));
  timeline.sort((x, y) => Date.parse(x.at) - Date.parse(y.at) || x.order - y.order);
  return {
    call: {
      ...callDto(call, usage ?? undefined),
      timeline: timeline.map(({ order: _order, ...e }) => e as TTimelineEntry),
      recordings: recordings.map(recordingDto),
    },
  };
}
