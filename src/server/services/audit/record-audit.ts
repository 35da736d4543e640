import type { Auth } from "../../auth/authenticate";
import type { SqlTransaction } from "../../db/sql-transaction";
import type { AuditAction, AuditTargetType } from "../../../shared/schemas/audit-log";

/**
 * docs/decisions.md §18: who made a change. A signed-in member (by user, with the address they had then),
 * an API key (by its public prefix, never the key), or Routekit itself.
 */
type AuditActor =
  | { type: "member"; userId: string; email: string }
  | { type: "api_key"; keyPrefix: string }
  | { type: "system" };

/** What a change to an account is recorded with: the actor and the client address of the request that made it. */
export type AuditOrigin = { actor: AuditActor; ip: string | null };

export function originOf(auth: Auth, ip: string | null): AuditOrigin {
  if (auth.user) return { actor: { type: "member", userId: auth.user.id, email: auth.user.email }, ip };
  return { actor: { type: "api_key", keyPrefix: auth.apiKeyPrefix ?? "unknown" }, ip };
}

export type AuditEntry = {
  accountId: string;
  origin: AuditOrigin;
  /** `resource.verb`: `api_key.created`, `member.role_changed`, … (one of AUDIT_ACTIONS, so a new one is named once). */
  action: AuditAction;
  target: { type: AuditTargetType; id?: string | null };
  /** What changed, never a secret. */
  details?: Record<string, unknown>;
};

/**
 * Writes one entry inside the transaction of the change it records, so the two commit or fail together:
 * a change that rolls back leaves no entry, and no change is made without one.
 */
export async function recordAudit(trx: SqlTransaction, entry: AuditEntry): Promise<void> {
  const { actor } = entry.origin;
  await trx
    .insertInto("AuditLogEntry")
    .values({
      accountId: entry.accountId,
      actorType: actor.type,
      actorUserId: actor.type === "member" ? actor.userId : null,
      actorEmail: actor.type === "member" ? actor.email : null,
      actorKeyPrefix: actor.type === "api_key" ? actor.keyPrefix : null,
      action: entry.action,
      targetType: entry.target.type,
      targetId: entry.target.id ?? null,
      details: entry.details === undefined ? null : JSON.stringify(entry.details),
      ip: entry.origin.ip,
    })
    .execute();
}
