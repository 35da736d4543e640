import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { sqlTransaction } from "../../db/sql-transaction";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { issueApiKey, type KeyMaker } from "./issue-api-key";
import type { API_KEY_SCOPES } from "../../../shared/schemas/api-keys";
import { API_KEYS_MAX_ITEMS } from "../../../shared/schemas/bounds";

type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/** The stored scope as the API names it (anything but `read-only` is a full key, as before scopes). */
const scopeOf = (stored: string): ApiKeyScope => (stored === "read-only" ? "read-only" : "full");

/** A ceiling against runaway scripts; revoked keys do not count. */

export async function createApiKey(opts: {
  accountId: string;
  maker: KeyMaker;
  origin: AuditOrigin;
  label?: string | null;
  scope?: ApiKeyScope;
  expiresAt?: string | null;
  now?: Date;
}) {
  const expiresAt = opts.expiresAt ? new Date(opts.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= (opts.now ?? new Date()).getTime()) {
    throw new AppError("VALIDATION_FAILED", "expiresAt must be in the future.", {
      details: [{ path: "expiresAt", message: "must be in the future" }],
    });
  }
  return sqlTransaction(async (trx) => {
    // Serialise key creation per account so the ceiling holds under concurrency.
    await trx.selectFrom("Account").select("id").where("id", "=", opts.accountId).forUpdate().execute();
    const { active } = await trx
      .selectFrom("ApiKey")
      .select((eb) => eb.fn.countAll<string>().as("active"))
      .where("accountId", "=", opts.accountId)
      .where("revokedAt", "is", null)
      .executeTakeFirstOrThrow();
    if (Number(active) >= API_KEYS_MAX_ITEMS) {
      throw new AppError(
        "VALIDATION_FAILED",
        `An account can hold at most ${API_KEYS_MAX_ITEMS} active API keys; revoke one first.`,
      );
    }
    const created = await issueApiKey(trx, opts.accountId, opts.label ?? null, opts.maker, {
      scope: opts.scope ?? "full",
      expiresAt,
    });
    // The prefix names the key, as it names a key's own changes; the key itself never leaves this answer.
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "api_key.created",
      target: { type: "api_key", id: created.id },
      details: {
        keyPrefix: created.keyPrefix,
        label: created.label,
        scope: scopeOf(created.scope),
        role: created.role,
        expiresAt: created.expiresAt?.toISOString() ?? null,
      },
    });
    return {
      id: created.id,
      key: created.key,
      keyPrefix: created.keyPrefix,
      label: created.label,
      scope: scopeOf(created.scope),
      expiresAt: created.expiresAt?.toISOString() ?? null,
      role: created.role,
      createdAt: created.createdAt.toISOString(),
    };
  });
}

export async function listApiKeys(opts: { accountId: string }) {
  const keys = await db().apiKey.findMany({
    where: { accountId: opts.accountId, revokedAt: null },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: {
      id: true,
      keyPrefix: true,
      label: true,
      lastUsedAt: true,
      scope: true,
      expiresAt: true,
      role: true,
      createdBy: { select: { id: true, email: true } },
      createdAt: true,
    },
  });
  return {
    apiKeys: keys.map((k) => ({
      id: k.id,
      keyPrefix: k.keyPrefix,
      label: k.label,
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      scope: scopeOf(k.scope),
      expiresAt: k.expiresAt?.toISOString() ?? null,
      role: k.role,
      createdBy: k.createdBy ? { userId: k.createdBy.id, email: k.createdBy.email } : null,
      createdAt: k.createdAt.toISOString(),
    })),
  };
}

/** Another account's key, an unknown id and an already revoked key all look the same: 404. */
export async function revokeApiKey(opts: { accountId: string; id: string; origin: AuditOrigin }) {
  await sqlTransaction(async (trx) => {
    const revoked = await trx
      .updateTable("ApiKey")
      .set({ revokedAt: new Date() })
      .where("id", "=", opts.id)
      .where("accountId", "=", opts.accountId)
      .where("revokedAt", "is", null)
      .returning(["id", "keyPrefix", "label"])
      .executeTakeFirst();
    if (!revoked) throw new AppError("NOT_FOUND", "No such API key.");
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "api_key.revoked",
      target: { type: "api_key", id: revoked.id },
      details: { keyPrefix: revoked.keyPrefix, label: revoked.label },
    });
  });
  return { revoked: true as const };
}
