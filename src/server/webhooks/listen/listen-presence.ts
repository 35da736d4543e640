/**
 * Where an account's `routekit listen` sockets are (docs/decisions.md §19), known to every instance through
 * one table: a row per socket, with the instance holding it and a heartbeat that instance refreshes. A row
 * whose heartbeat stopped (the instance died) is ignored at once and deleted later by any instance.
 */
import { sql } from "kysely";
import { kysely, now } from "../../db/kysely";

/** How often an instance refreshes its sockets' rows. */
export const HEARTBEAT_MS = 5_000;
/** A row not refreshed for this long is an instance that died: no event is sent there. */
const STALE_MS = 20_000;
/** Rows (and undelivered messages) this old are deleted by whichever instance sweeps. */
const SWEEP_AFTER_MS = 60_000;

/** The oldest heartbeat of a live row. */
const fresh = () => sql<Date>`now() - make_interval(secs => ${STALE_MS / 1000})`;

/**
 * A socket's row, if the account has fewer than `cap` live listeners: one statement, so two sockets
 * connecting at once on two instances can overshoot by one at most, never without bound.
 */
export async function addSession(opts: {
  accountId: string;
  instanceId: string;
  apiKeyId: string;
  cap: number;
}): Promise<string | null> {
  const { rows } = await sql<{ id: string }>`
    insert into "ListenSession" ("accountId", "instanceId", "apiKeyId")
    select ${opts.accountId}, ${opts.instanceId}, ${opts.apiKeyId}
    where (select count(*) from "ListenSession" where "accountId" = ${opts.accountId} and "heartbeatAt" > ${fresh()}) < ${opts.cap}
    returning id`.execute(kysely());
  const row = rows[0];
  return row?.id ?? null;
}

export async function removeSessions(ids: string[]): Promise<void> {
  if (!ids.length) return;
  await kysely()
    .deleteFrom("ListenSession")
    .where((eb) => eb("id", "=", eb.fn.any(eb.val(ids))))
    .execute();
}

/** The instance's rows are alive; rows of dead instances and messages nobody took are deleted. */
export async function heartbeat(instanceId: string): Promise<void> {
  await kysely()
    .updateTable("ListenSession")
    .set({ heartbeatAt: now() })
    .where("instanceId", "=", instanceId)
    .execute();
  const before = sql<Date>`now() - make_interval(secs => ${SWEEP_AFTER_MS / 1000})`;
  await kysely().deleteFrom("ListenSession").where("heartbeatAt", "<", before).execute();
  await kysely().deleteFrom("ListenMessage").where("createdAt", "<", before).execute();
}

/** The instances holding a live listener of the account (none: its numbers use their URLs). */
export async function instancesListening(accountId: string): Promise<string[]> {
  const rows = await kysely()
    .selectFrom("ListenSession")
    .select("instanceId")
    .distinct()
    .where("accountId", "=", accountId)
    .where("heartbeatAt", ">", fresh())
    .execute();
  return rows.map((r) => r.instanceId);
}

/** Of these API keys, the ones still neither revoked nor expired: a socket of any other is closed. */
export async function keysStillValid(keyIds: string[]): Promise<Set<string>> {
  if (!keyIds.length) return new Set();
  const rows = await kysely()
    .selectFrom("ApiKey")
    .select("id")
    .where((eb) => eb("id", "=", eb.fn.any(eb.val(keyIds))))
    .where("revokedAt", "is", null)
    .where((eb) => eb.or([eb("expiresAt", "is", null), eb("expiresAt", ">", now())]))
    .execute();
  return new Set(rows.map((r) => r.id));
}
