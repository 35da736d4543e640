import type { CompiledQuery } from "kysely";
import { executeCompiled, kysely, precompiled } from "../db/kysely";

/** What every key look-up reads: the key's own columns (authentication's) and the account's identity. */
const KEY_AND_ACCOUNT = [
  "k.id as keyId",
  "k.keyPrefix",
  "k.role",
  "k.createdByUserId",
  "k.lastUsedAt",
  "k.scope",
  "k.expiresAt",
  "a.id",
  "a.email",
  "a.status",
] as const;

/**
 * An API key's look-up: the REST path's one round trip. Only active keys
 * match, so a revoked key (or any key of a closed account) is refused by the
 * same read, on every instance, on its next request. Compiled once (db/kysely.ts `precompiled`): this runs on
 * every authenticated request.
 */
const keyAndAccount = precompiled((keyHash: string) =>
  kysely()
    .selectFrom("ApiKey as k")
    .innerJoin("Account as a", "a.id", "k.accountId")
    .select([...KEY_AND_ACCOUNT])
    .where("k.keyHash", "=", keyHash)
    .where("k.revokedAt", "is", null)
    .where("a.deletedAt", "is", null),
);

/** The account as GET /api/account shows it, read by the same statement that checks the key. */
const keyAndAccountRead = precompiled((keyHash: string) =>
  kysely()
    .selectFrom("ApiKey as k")
    .innerJoin("Account as a", "a.id", "k.accountId")
    .select((eb) => [
      ...KEY_AND_ACCOUNT,
      "a.companyName",
      "a.createdAt",
      "a.webhookSecretEnc",
      "a.routingTokenEnc",
      "a.legacyRoutingToken",
      eb
        .selectFrom("PhoneNumber as p")
        .select((c) => c.cast<number>(c.fn.countAll(), "integer").as("n"))
        .whereRef("p.accountId", "=", "a.id")
        .as("phoneNumbers"),
      eb
        .selectFrom("ApiKey as ak")
        .select((c) => c.cast<number>(c.fn.countAll(), "integer").as("n"))
        .whereRef("ak.accountId", "=", "a.id")
        .where("ak.revokedAt", "is", null)
        .as("apiKeys"),
    ])
    .where("k.keyHash", "=", keyHash)
    .where("k.revokedAt", "is", null)
    .where("a.deletedAt", "is", null),
);

/** Conditional, so concurrent requests on several instances write `lastUsedAt` at most once a resolution. */
const touch = precompiled((keyId: string, now: Date, before: Date) =>
  kysely()
    .updateTable("ApiKey")
    .set({ lastUsedAt: now })
    .where("id", "=", keyId)
    .where((eb) => eb.or([eb("lastUsedAt", "is", null), eb("lastUsedAt", "<", before)])),
);

type RowOf<F> = F extends (...args: never[]) => CompiledQuery<infer O> ? O : never;
export type KeyedAccount = RowOf<typeof keyAndAccount>;
/** The key's own columns of the look-up: everything it reads but the account's identity. */
type KeyColumns = Exclude<keyof KeyedAccount, "id" | "email" | "status">;
export type AccountRead = Omit<RowOf<typeof keyAndAccountRead>, KeyColumns | "phoneNumbers" | "apiKeys"> & {
  phoneNumbers: number;
  apiKeys: number;
};

export async function findActiveKey(keyHash: string): Promise<KeyedAccount | null> {
  const [row] = await executeCompiled(keyAndAccount(keyHash));
  return row ?? null;
}

export async function findActiveKeyWithAccountRead(keyHash: string): Promise<(KeyedAccount & AccountRead) | null> {
  const [row] = await executeCompiled(keyAndAccountRead(keyHash));
  return row ? { ...row, phoneNumbers: row.phoneNumbers ?? 0, apiKeys: row.apiKeys ?? 0 } : null;
}

export async function touchKey(keyId: string, now: Date, resolutionMs: number): Promise<void> {
  await executeCompiled(touch(keyId, now, new Date(now.getTime() - resolutionMs)));
}

/**
 * A login token's look-up: the user's session version and their membership of the token's account, with the
 * account, in one statement; a removed member has no membership, so the token is refused on its next request.
 * `ended` is whether this session was ended on its own (its `jti`).
 */
const sessionMember = precompiled((userId: string, accountId: string, jti: string) =>
  kysely()
    .selectFrom("User as u")
    .innerJoin("Membership as m", (j) => j.onRef("m.userId", "=", "u.id").on("m.accountId", "=", accountId))
    .innerJoin("Account as a", "a.id", "m.accountId")
    .select((eb) => [
      "u.id as userId",
      "u.email as userEmail",
      "u.sessionVersion",
      "u.twoFactorEnabledAt",
      "m.role",
      "a.id",
      "a.email",
      "a.status",
      "a.deletedAt",
      "a.requireTwoFactor",
      eb.exists(eb.selectFrom("EndedSession as e").select("e.jti").where("e.jti", "=", jti)).as("ended"),
    ])
    .where("u.id", "=", userId),
);

export type SessionMember = RowOf<typeof sessionMember>;

export async function findSessionMember(userId: string, accountId: string, jti: string): Promise<SessionMember | null> {
  const [row] = await executeCompiled(sessionMember(userId, accountId, jti));
  return row ?? null;
}
