import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/kysely";
import type { SqlTransaction } from "../../db/sql-transaction";
import { alertMail } from "../../email/account-mails";
import { queueMail } from "../../email/queue-mail";
import { logger } from "../../logger";
import { RECOVERY_OF, type AlertData, type AlertSubjectType, type AlertType } from "../../../shared/schemas/alerts";
import { buildEvent } from "../../webhooks/event-envelope";
import { emitIn, transactionWithEvents, type Emit } from "../../webhooks/enqueue-event";
import { alertTitle, howToFix } from "./alert-text";
import { alertEmailEnabled } from "./alert-settings";

export type AlertSubject = { type: AlertSubjectType; id: string; url?: string };

export type AlertInput = {
  accountId: string;
  type: AlertType;
  subject: AlertSubject;
  /** When the condition began (a recovery: when it cleared). */
  since: Date;
  details: Record<string, unknown>;
  /** The time of the check (tests inject it); the hour of deduplication is this time's UTC hour. */
  now?: Date;
};

/** The UTC hour of `at`: one alert per (account, type, subject, hour), enforced by a unique index every instance shares. */
function alertHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
}

/**
 * Raises an alert (docs/decisions.md §16) in one transaction: its row, its event to every subscribed endpoint
 * except the destination it is about, and its email unless switched off. Nothing when the same kind about
 * the same subject was raised this hour (the unique index decides, across instances), or, for a kind that
 * stays open until it recovers, while one is still open. Answers whether it was raised.
 */
export async function raiseAlert(input: AlertInput): Promise<boolean> {
  const raised = await transactionWithEvents((trx, emit) => raiseIn(trx, emit, input));
  if (raised) {
    logger().info({ accountId: input.accountId, alert: input.type, subject: input.subject }, "alert raised");
  }
  return raised;
}

/** raiseAlert inside a transaction the caller runs (a Stripe event's): the alert commits or rolls back with it. */
export function raiseAlertIn(trx: SqlTransaction, input: AlertInput): Promise<boolean> {
  return raiseIn(trx, emitIn(trx), input);
}

/**
 * Announces the recovery of an open alert: marks it resolved (once: the first instance to update it wins)
 * and raises its recovery kind in the same transaction.
 */
export async function recoverAlert(open: {
  id: string;
  accountId: string;
  type: keyof typeof RECOVERY_OF;
  subject: AlertSubject;
  details: Record<string, unknown>;
  now?: Date;
}): Promise<boolean> {
  const now = open.now ?? new Date();
  return transactionWithEvents(async (trx, emit) => {
    const resolved = await trx
      .updateTable("Alert")
      .set({ resolvedAt: now })
      .where("id", "=", open.id)
      .where("resolvedAt", "is", null)
      .returning("id")
      .executeTakeFirst();
    if (!resolved) return false;
    await raiseIn(trx, emit, {
      accountId: open.accountId,
      type: RECOVERY_OF[open.type],
      subject: open.subject,
      since: now,
      details: open.details,
      now,
    });
    return true;
  });
}

async function raiseIn(trx: SqlTransaction, emit: Emit, input: AlertInput): Promise<boolean> {
  const now = input.now ?? new Date();
  const { accountId, type, subject } = input;
  if (type in RECOVERY_OF) {
    const open = await trx
      .selectFrom("Alert")
      .select("id")
      .where("accountId", "=", accountId)
      .where("type", "=", type)
      .where("subjectType", "=", subject.type)
      .where("subjectId", "=", subject.id)
      .where("resolvedAt", "is", null)
      .executeTakeFirst();
    if (open) return false;
  }
  const data: AlertData = {
    kind: type,
    subject: { type: subject.type, id: subject.id, ...(subject.url && { url: subject.url }) },
    since: input.since.toISOString(),
    details: input.details,
    howToFix: howToFix(type, subject),
  };
  const event = buildEvent(type, data, now);
  const inserted = await trx
    .insertInto("Alert")
    .values({
      accountId,
      type,
      subjectType: subject.type,
      subjectId: subject.id,
      subjectUrl: subject.url ?? null,
      since: input.since,
      details: JSON.stringify(input.details),
      howToFix: data.howToFix,
      hour: alertHour(now),
      eventId: event.id,
      createdAt: now,
    })
    .onConflict((oc) => oc.columns(["accountId", "type", "subjectType", "subjectId", "hour"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) return false;
  // Never to the destination the alert is about: it is failing, and the alert would only fail with it.
  await emit({ accountId, url: null, event, exceptUrl: subject.type === "endpoint" ? subject.url : undefined });
  const account = await trx
    .selectFrom("Account")
    .select(["email", "deletedAt"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (account && !account.deletedAt && (await alertEmailEnabled(trx, accountId, type)))
    await queueMail(
      alertMail(account.email, {
        title: alertTitle(type),
        type,
        subject: data.subject,
        since: data.since,
        howToFix: data.howToFix,
      }),
      { kind: type, trx },
    );
  return true;
}

/** Subject of a destination: the account endpoint at that URL, else the number whose URL it is, else the account. */
export async function destinationSubject(
  trx: Kysely<DB>,
  accountId: string,
  url: string,
  endpointId?: string | null,
): Promise<AlertSubject> {
  if (endpointId) return { type: "endpoint", id: endpointId, url };
  const endpoint = await trx
    .selectFrom("WebhookEndpoint")
    .select("id")
    .where("accountId", "=", accountId)
    .where("url", "=", url)
    .orderBy("createdAt")
    .executeTakeFirst();
  if (endpoint) return { type: "endpoint", id: endpoint.id, url };
  const number = await trx
    .selectFrom("PhoneNumber")
    .select("id")
    .where("accountId", "=", accountId)
    .where((eb) => eb.or([eb("onCallStartUrl", "=", url), eb("onCallEndUrl", "=", url), eb("onErrorUrl", "=", url)]))
    .orderBy("createdAt")
    .executeTakeFirst();
  // A number's URL is a destination too: the subject is still an endpoint (what fails is the URL), its id the
  // number's; a URL of no number (an outbound call's own) gets a stable id of its own, so each URL is one subject.
  return {
    type: "endpoint",
    id: number?.id ?? `url_${createHash("sha256").update(url).digest("hex").slice(0, 24)}`,
    url,
  };
}
