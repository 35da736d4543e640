import { kysely } from "../../db/kysely";
import { logger } from "../../logger";
import { FAILURE_THRESHOLD } from "../deliveries/endpoint-health";
import { destinationSubject, raiseAlert, recoverAlert } from "./raise-alert";

/**
 * docs/decisions.md §16, §22: a destination is failing once 3 attempts in a row have failed, the moment the
 * delivery worker backs it off (one rule: endpoint-health.ts FAILURE_THRESHOLD); a number falls back when 3 of its calls within 5 minutes were decided by a fallback or the
 * last resort, and recovers after 5 minutes with none.
 */
const FAILING_AFTER_FAILURES = FAILURE_THRESHOLD;
const FALLBACK_WINDOW_MS = 5 * 60_000;
const FALLBACK_CALLS = 3;
/** The answers of a call that its backend's own answer did not decide (docs/decisions.md §12). */
export const FALLBACK_ANSWERS = ["fallback-url", "fallback-actions", "fallback-twiml", "fallback"] as const;
/** How often each instance runs scanAlerts: well inside the 60 s promise, and cheap (see each query). */
export const ALERT_SCAN_INTERVAL_MS = 15_000;

/**
 * One pass over the conditions that have no single moment to hook on, run every ALERT_SCAN_INTERVAL_MS by
 * every instance (jobs/definitions/alert-scan.ts); the alert rows make it idempotent across instances.
 * - failing destinations: WebhookEndpointHealth rows at 3 or more failures in a row (one row per failing
 *   account + URL, a small table);
 * - their recoveries: open endpoint_failing alerts whose destination has answered since (no failures in a row);
 * - fallback recoveries: open fallback_rate alerts whose number had no fallback call in the last 5 minutes.
 * `now` is injectable (tests move time instead of waiting), and `accountId` keeps a test's pass to its own account.
 */
export async function scanAlerts(
  opts: { now?: Date; accountId?: string } = {},
): Promise<{ raised: number; recovered: number }> {
  const now = opts.now ?? new Date();
  let raised = 0;
  let recovered = 0;
  const failing = await kysely()
    .selectFrom("WebhookEndpointHealth")
    .select(["accountId", "url", "consecutiveFailures", "lastFailureAt", "backoffUntil"])
    .where("consecutiveFailures", ">=", FAILING_AFTER_FAILURES)
    // One already open about it: nothing to raise (a destination down for days costs no transaction per scan).
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("Alert as a")
            .select("a.id")
            .whereRef("a.accountId", "=", "WebhookEndpointHealth.accountId")
            .whereRef("a.subjectUrl", "=", "WebhookEndpointHealth.url")
            .where("a.type", "=", "alert.endpoint_failing")
            .where("a.resolvedAt", "is", null),
        ),
      ),
    )
    .$if(opts.accountId !== undefined, (q) => q.where("accountId", "=", opts.accountId!))
    .execute();
  for (const h of failing) {
    try {
      const subject = await destinationSubject(kysely(), h.accountId, h.url);
      const ok = await raiseAlert({
        accountId: h.accountId,
        type: "alert.endpoint_failing",
        subject,
        since: h.lastFailureAt ?? now,
        details: {
          consecutiveFailures: h.consecutiveFailures,
          lastFailureAt: h.lastFailureAt?.toISOString() ?? null,
          backedOffUntil: h.backoffUntil?.toISOString() ?? null,
        },
        now,
      });
      if (ok) raised++;
    } catch (err) {
      logger().warn({ err: err instanceof Error ? err.message : String(err) }, "alert scan: endpoint_failing");
    }
  }

  const open = await kysely()
    .selectFrom("Alert")
    .select(["id", "accountId", "type", "subjectType", "subjectId", "subjectUrl", "createdAt"])
    .where("resolvedAt", "is", null)
    .where("type", "in", ["alert.endpoint_failing", "alert.fallback_rate"])
    .$if(opts.accountId !== undefined, (q) => q.where("accountId", "=", opts.accountId!))
    .execute();
  for (const a of open) {
    try {
      const subject = {
        type: a.subjectType as "endpoint" | "number" | "account",
        id: a.subjectId,
        ...(a.subjectUrl && { url: a.subjectUrl }),
      };
      if (a.type === "alert.endpoint_failing") {
        const health = await kysely()
          .selectFrom("WebhookEndpointHealth")
          .select("consecutiveFailures")
          .where("accountId", "=", a.accountId)
          .where("url", "=", a.subjectUrl ?? "")
          .executeTakeFirst();
        if ((health?.consecutiveFailures ?? 0) > 0) continue;
        if (
          await recoverAlert({
            id: a.id,
            accountId: a.accountId,
            type: "alert.endpoint_failing",
            subject,
            details: { failingSince: a.createdAt.toISOString() },
            now,
          })
        )
          recovered++;
      } else {
        // At least one whole window after it was raised, and none in the window just gone.
        if (now.getTime() - a.createdAt.getTime() < FALLBACK_WINDOW_MS) continue;
        const recent = await fallbackCalls(a.accountId, now, a.subjectId);
        if (recent.length) continue;
        if (
          await recoverAlert({
            id: a.id,
            accountId: a.accountId,
            type: "alert.fallback_rate",
            subject,
            details: { fallingBackSince: a.createdAt.toISOString() },
            now,
          })
        )
          recovered++;
      }
    } catch (err) {
      logger().warn({ err: err instanceof Error ? err.message : String(err) }, "alert scan: recovery");
    }
  }
  return { raised, recovered };
}

/** Real calls of the account created in the 5 minutes up to `now` that a fallback decided (the (accountId, createdAt) index). */
async function fallbackCalls(accountId: string, now: Date, phoneNumberId?: string) {
  return (
    kysely()
      .selectFrom("Call")
      .select(["callSid", "phoneNumberId", "createdAt", "answer", "errorCode"])
      .where("accountId", "=", accountId)
      .where("createdAt", ">", new Date(now.getTime() - FALLBACK_WINDOW_MS))
      .where("createdAt", "<=", now)
      .where("answer", "in", [...FALLBACK_ANSWERS])
      .where("phoneNumberId", "is not", null)
      // A simulated call (docs/decisions.md §21) is the customer trying their set-up, not a caller let down.
      .where("test", "=", false)
      .$if(phoneNumberId !== undefined, (q) => q.where("phoneNumberId", "=", phoneNumberId!))
      .orderBy("createdAt")
      .execute()
  );
}

/**
 * Checks an account's numbers for 3 or more calls decided by a fallback within 5 minutes (docs/decisions.md
 * §16): run when the call log records a fallback answer (engine/call-log.ts), so within seconds of the third.
 */
export async function checkFallbackRate(accountId: string, now: Date = new Date()): Promise<number> {
  const calls = await fallbackCalls(accountId, now);
  const byNumber = new Map<string, typeof calls>();
  for (const c of calls) byNumber.set(c.phoneNumberId!, [...(byNumber.get(c.phoneNumberId!) ?? []), c]);
  let raised = 0;
  for (const [phoneNumberId, list] of byNumber) {
    if (list.length < FALLBACK_CALLS) continue;
    const number = await kysely()
      .selectFrom("PhoneNumber")
      .select("phoneNumber")
      .where("id", "=", phoneNumberId)
      .executeTakeFirst();
    const ok = await raiseAlert({
      accountId,
      type: "alert.fallback_rate",
      subject: { type: "number", id: phoneNumberId },
      since: list[0]!.createdAt,
      details: {
        phoneNumber: number?.phoneNumber ?? null,
        calls: list.length,
        windowSeconds: FALLBACK_WINDOW_MS / 1000,
        callSids: list.slice(-10).map((c) => c.callSid),
        lastErrorCode: list[list.length - 1]!.errorCode,
      },
      now,
    });
    if (ok) raised++;
  }
  return raised;
}

/** The call log's hook: a fallback-decided call was just written; checked after the write, off the answer path. */
export function noteFallbackCalls(accountIds: Iterable<string>): void {
  for (const accountId of new Set(accountIds))
    checkFallbackRate(accountId).catch((err: unknown) =>
      logger().warn({ err: err instanceof Error ? err.message : String(err), accountId }, "fallback rate check failed"),
    );
}
