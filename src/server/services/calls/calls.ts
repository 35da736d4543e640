import type { Call, Prisma, UsageRecord } from "@/generated/prisma/client";
import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import type { TCall, TTimelineEntry } from "../../schemas/calls";
import type { CostBreakdown } from "../usage/billed-minutes";
import { decodeKeysetCursor, encodeKeysetCursor } from "../pagination/keyset-cursor";
import type { EventType } from "../../schemas/events";
import type { CallDirection } from "../../schemas/enums";

type CallStatus = TCall["status"];
type CallAnswer = NonNullable<TCall["answer"]>;
const ANSWERS = new Set<string>(["xml", "json-twiml", "json-actions", "fallback", "reject"]);

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
  since?: string;
  until?: string;
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
    ...(opts.status && { status: opts.status === "in-progress" ? { in: ["in-progress", "answered"] } : opts.status }),
    ...(opts.direction && { direction: opts.direction }),
    ...(opts.phoneNumberId && { phoneNumberId: opts.phoneNumberId }),
    ...(opts.callSid && { callSid: opts.callSid }),
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

/**
 * One call with its timeline, oldest first: Twilio's requests, the `call.started`
 * attempt and the TwiML returned, the events sent, the usage. Another account's
 * call is not found (its existence is not revealed).
 */
export async function getCall(opts: { accountId: string; callSid: string }) {
  const call = await db().call.findFirst({
    where: { callSid: opts.callSid, accountId: opts.accountId },
    include: { requests: { orderBy: [{ at: "asc" }, { id: "asc" }], take: 200 } },
  });
  if (!call) throw new AppError("NOT_FOUND", "No such call.");
  const [usage, deliveries] = await Promise.all([
    db().usageRecord.findFirst({ where: { accountId: opts.accountId, callSid: call.callSid } }),
    db().webhookDelivery.findMany({
      where: { accountId: opts.accountId, callSid: call.callSid },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: 100,
      include: { attempts: { orderBy: { attemptedAt: "desc" }, take: 1 } },
    }),
  ]);

  const timeline: (TTimelineEntry & { order: number })[] = [];
  for (const r of call.requests) {
    timeline.push({
      type: "request",
      at: r.at.toISOString(),
      kind: r.kind === "voice" || r.kind === "reconciliation" ? r.kind : "status",
      callStatus: r.callStatus,
      sequenceNumber: r.sequenceNumber,
      order: 0,
    });
  }
  for (const d of deliveries) {
    const a = d.attempts[0];
    if (d.synchronous) {
      timeline.push({
        type: "call.started",
        at: (a?.attemptedAt ?? d.createdAt).toISOString(),
        deliveryId: d.id,
        url: d.url,
        statusCode: a?.statusCode ?? null,
        latencyMs: a?.latencyMs ?? 0,
        responseExcerpt: a?.responseExcerpt ?? null,
        error: a?.error ?? null,
        answerUse: d.answerUse,
        order: 1,
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
    const started = timeline.filter((e) => e.type === "call.started").pop();
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
  timeline.sort((x, y) => Date.parse(x.at) - Date.parse(y.at) || x.order - y.order);
  return {
    call: {
      ...callDto(call, usage ?? undefined),
      timeline: timeline.map(({ order: _order, ...e }) => e as TTimelineEntry),
    },
  };
}
