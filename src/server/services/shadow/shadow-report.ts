/**
 * docs/decisions.md §23: GET /api/phone-numbers/{id}/shadow. The number's shadow, how its mirrored calls
 * compared since `since` (default: when the shadow was set, else 30 days back; never further than the
 * 30 days kept), and the last 100 that were `different` or `failed`, newest first.
 */
import { sql } from "kysely";
import { db } from "../../db/client";
import { kysely } from "../../db/kysely";
import { SHADOW_REPORT_CALLS_MAX as CALLS_SHOWN, shadowDto } from "../../../shared/schemas/shadow";
import type { z } from "zod";
import type { ZShadowReportOutput } from "../../../shared/schemas/shadow";
import { notOwnedOrMissing } from "../phone-numbers/phone-number-dto";
import { utcDay } from "../usage/usage-periods";

/** Mirrored calls, skip counts and shadow/replay deliveries are kept this long (the daily prune, pruneShadowResults). */
export const SHADOW_KEPT_DAYS = 30;
const DAY_MS = 24 * 3600_000;

type Report = z.output<typeof ZShadowReportOutput>;

const latency = (p50: number | null, p99: number | null) => ({
  p50: p50 === null ? null : Math.round(Number(p50)),
  p99: p99 === null ? null : Math.round(Number(p99)),
});

export async function shadowReport(opts: { accountId: string; id: string; since?: string }): Promise<Report> {
  const number = await db().phoneNumber.findFirst({
    where: { id: opts.id, accountId: opts.accountId },
    select: { id: true, shadow: true },
  });
  if (!number) return notOwnedOrMissing(opts.id);
  const shadow = shadowDto(number.shadow);
  const floor = Date.now() - SHADOW_KEPT_DAYS * DAY_MS;
  const asked = opts.since ? Date.parse(opts.since) : shadow ? Date.parse(shadow.setAt) : floor;
  const since = new Date(Math.max(asked, floor));
  const k = kysely();
  const ofNumber = k
    .selectFrom("ShadowCall")
    .where("accountId", "=", opts.accountId)
    .where("phoneNumberId", "=", number.id)
    .where("startedAt", ">=", since);
  const [counts, skipped, calls] = await Promise.all([
    ofNumber
      .select([
        sql<string>`count(*)`.as("mirrored"),
        sql<string>`count(*) filter (where "outcome" = 'same')`.as("same"),
        sql<string>`count(*) filter (where "outcome" = 'different')`.as("different"),
        sql<string>`count(*) filter (where "outcome" = 'failed')`.as("failed"),
        sql<number | null>`percentile_disc(0.5) within group (order by "primaryLatencyMs")`.as("primaryP50"),
        sql<number | null>`percentile_disc(0.99) within group (order by "primaryLatencyMs")`.as("primaryP99"),
        sql<number | null>`percentile_disc(0.5) within group (order by "shadowLatencyMs")`.as("shadowP50"),
        sql<number | null>`percentile_disc(0.99) within group (order by "shadowLatencyMs")`.as("shadowP99"),
      ])
      .executeTakeFirstOrThrow(),
    k
      .selectFrom("ShadowSkip")
      .select(sql<string | null>`sum("skipped")`.as("skipped"))
      .where("accountId", "=", opts.accountId)
      .where("phoneNumberId", "=", number.id)
      .where("day", ">=", utcDay(since))
      .executeTakeFirstOrThrow(),
    ofNumber
      .selectAll()
      .where("outcome", "in", ["different", "failed"])
      .orderBy("startedAt", "desc")
      .orderBy("id", "desc")
      .limit(CALLS_SHOWN)
      .execute(),
  ]);
  return {
    shadow,
    report: {
      since: since.toISOString(),
      mirrored: Number(counts.mirrored),
      skipped: Number(skipped.skipped ?? 0),
      same: Number(counts.same),
      different: Number(counts.different),
      failed: Number(counts.failed),
      primaryLatencyMs: latency(counts.primaryP50, counts.primaryP99),
      shadowLatencyMs: latency(counts.shadowP50, counts.shadowP99),
    },
    calls: calls.map((c) => ({
      callSid: c.callSid,
      startedAt: c.startedAt.toISOString(),
      outcome: c.outcome as "different" | "failed",
      primary: { answer: c.primaryAnswer, twiml: c.primaryTwiml, latencyMs: c.primaryLatencyMs },
      shadow: {
        answer: c.shadowAnswer,
        twiml: c.shadowTwiml,
        latencyMs: c.shadowLatencyMs,
        ...(c.shadowError !== null && { error: c.shadowError }),
      },
    })),
  };
}

/** The daily prune (workers/webhook-attempt-prune.handler.ts): mirrored calls and skip counts past 30 days. */
export async function pruneShadowResults(now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - SHADOW_KEPT_DAYS * DAY_MS);
  const k = kysely();
  const calls = await k.deleteFrom("ShadowCall").where("startedAt", "<", cutoff).executeTakeFirst();
  const days = await k.deleteFrom("ShadowSkip").where("day", "<", utcDay(cutoff)).executeTakeFirst();
  return Number(calls.numDeletedRows) + Number(days.numDeletedRows);
}
