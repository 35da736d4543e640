import type { Kysely } from "kysely";
import { kysely, type DB } from "../../db/kysely";
import { ALERT_TYPES, type AlertType } from "../../../shared/schemas/alerts";
import { sqlTransaction } from "../../db/sql-transaction";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";

/**
 * GET/PUT /api/account/alert-settings (docs/decisions.md §16, §22): which alert types are also emailed. Every
 * type is on until switched off; only the types switched off are stored (an account that never changed
 * anything has no row).
 */
export type AlertEmailSettings = { email: Record<AlertType, boolean> };

function settingsOf(off: readonly string[]): AlertEmailSettings {
  return { email: Object.fromEntries(ALERT_TYPES.map((t) => [t, !off.includes(t)])) as Record<AlertType, boolean> };
}

export async function getAlertSettings(accountId: string): Promise<AlertEmailSettings> {
  const row = await kysely()
    .selectFrom("AlertSetting")
    .select("emailOff")
    .where("accountId", "=", accountId)
    .executeTakeFirst();
  return settingsOf(row?.emailOff ?? []);
}

/** Replaces the switches: a type left out is on. */
export async function putAlertSettings(
  accountId: string,
  input: { email: Partial<Record<AlertType, boolean | undefined>> },
  origin: AuditOrigin,
): Promise<AlertEmailSettings> {
  const off = ALERT_TYPES.filter((t) => input.email[t] === false);
  await sqlTransaction(async (trx) => {
    await trx
      .insertInto("AlertSetting")
      .values({ accountId, emailOff: off })
      .onConflict((oc) => oc.column("accountId").doUpdateSet({ emailOff: off, updatedAt: new Date() }))
      .execute();
    await recordAudit(trx, {
      accountId,
      origin,
      action: "account.alert_settings_changed",
      target: { type: "account", id: accountId },
      details: { emailOff: off },
    });
  });
  return settingsOf(off);
}

export async function alertEmailEnabled(db: Kysely<DB>, accountId: string, type: AlertType): Promise<boolean> {
  const row = await db
    .selectFrom("AlertSetting")
    .select("emailOff")
    .where("accountId", "=", accountId)
    .executeTakeFirst();
  return !row?.emailOff?.includes(type);
}
