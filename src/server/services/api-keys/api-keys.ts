import { AppError } from "../../errors/app-error";
import { db } from "../../db/client";
import { sqlTransaction } from "../../db/sql-transaction";
import { issueApiKey, type KeyMaker } from "./issue-api-key";
import type { API_KEY_SCOPES } from "../../../shared/schemas/api-keys";

type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
/** The stored scope as the API names it (anything but `read-only` is a full key, as before scopes). */
const scopeOf = (stored: string): ApiKeyScope => (stored === "read-only" ? "read-only" : "full");

/** A ceiling against runaway scripts; revoked keys do not count. */
const MAX_ACTIVE_KEYS = 100;

export async function createApiKey(opts: {
  accountId: string;
  maker: KeyMaker;
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
    if (Number(active) >= MAX_ACTIVE_KEYS) {
      throw new AppError(
        "VALIDATION_FAILED",
        `An account can hold at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first.`,
      );
    }
    const created = await issueApiKey(trx, opts.accountId, opts.label ?? null, opts.maker, {
      scope: opts.scope ?? "full",
      expiresAt,
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
export async function revokeApiKey(opts: { accountId: string; id: string }) {
  const result = await db().apiKey.updateMany({
    where: { id: opts.id, accountId: opts.accountId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (result.count === 0) throw new AppError("NOT_FOUND", "No such API key.");
  return { revoked: true as const };
}
