// Issue #44: users came apart from accounts. A database is brought to the schema just before the teams migration
// and given what the previous version stored: accounts with their password, session version and verification,
// API keys, a mailed link and an ended session. After the migration every account has its owner (the user with
// the account's id), a login token issued before it still works (sessions survive), the old password signs in,
// and a key made before it is the owner's, `full`, and works as it did.
import { cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { siblingDatabase } from "../../scripts/built-server";
import type { DB } from "../../src/generated/kysely/db";
import { generateApiKey, hashApiKey, keyPrefixOf } from "../../src/server/auth/api-key-format";
import { authenticate } from "../../src/server/auth/authenticate";
import { hashPassword } from "../../src/server/auth/password";
import { encryptSecret, generateWebhookSecret } from "../../src/server/crypto/secret-box";
import { applyMigrations } from "../../src/server/db/apply-migrations";
import { disconnectDb, setConnectionUrl } from "../../src/server/db/client";
import { parseEnv, setEnv } from "../../src/server/env";
import { logIn } from "../../src/server/services/accounts/log-in";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

const embedded = inject("embedded");
const repoMigrations = path.resolve(import.meta.dirname, "../../prisma/migrations");
const TEAMS_MIGRATION = readdirSync(repoMigrations).find((n) => n.endsWith("_teams"))!;

let pool: pg.Pool;
let db: Kysely<DB>;
let databaseUrl = "";

beforeAll(async () => {
  if (embedded) return;
  databaseUrl = await siblingDatabase(process.env.DATABASE_URL!, "teams_migration");
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  setEnv(
    parseEnv({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-teams-migration-")),
      AUTH_SECRET: TEST_AUTH_SECRET,
      LOG_LEVEL: "silent",
    }),
  );
}, 60_000);
afterAll(async () => {
  if (embedded) return;
  await disconnectDb();
  await pool.end();
});

/** A login token as the previous version signed it: the account as subject, its session version, no `acc`. */
async function oldLoginToken(accountId: string, sessionVersion: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sv: sessionVersion })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(accountId)
    .setIssuer("routekit")
    .setAudience("routekit:login")
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(TEST_AUTH_SECRET));
}

describe.skipIf(embedded)(`migration ${TEAMS_MIGRATION}`, () => {
  it("turns every account into its owner's user: old sessions, passwords and keys keep working", async () => {
    const before = mkdtempSync(path.join(tmpdir(), "teams-migration-"));
    for (const name of readdirSync(repoMigrations))
      if (name < TEAMS_MIGRATION) cpSync(path.join(repoMigrations, name), path.join(before, name), { recursive: true });
    await applyMigrations(pool, before);

    // The previous schema's rows (its Account still had the credentials, which the generated types no longer know).
    const password = "correct horse battery";
    const passwordHash = await hashPassword(password);
    const made = async (email: string, sessionVersion: number) =>
      db
        .insertInto("Account")
        .values({
          email,
          passwordHash,
          sessionVersion,
          emailVerifiedAt: new Date("2026-11-01T00:00:00Z"),
          status: "ACTIVE",
          webhookSecretEnc: encryptSecret(generateWebhookSecret()),
          routingTokenHash: `h-${randomUUID()}`,
        } as never)
        .returning("id")
        .executeTakeFirstOrThrow();
    const alice = await made(`alice-${process.pid}@example.com`, 2);
    const bob = await made(`bob-${process.pid}@example.com`, 0);
    const key = generateApiKey();
    await db
      .insertInto("ApiKey")
      .values({ accountId: alice.id, label: "Default", keyPrefix: keyPrefixOf(key), keyHash: hashApiKey(key) } as never)
      .execute();
    const current = await oldLoginToken(alice.id, 2);
    const stale = await oldLoginToken(alice.id, 1);
    await db
      .insertInto("EndedSession")
      .values({ jti: "ended-before", accountId: bob.id, expiresAt: new Date(Date.now() + 3600_000) } as never)
      .execute();
    await db
      .insertInto("AccountToken")
      .values({
        accountId: bob.id,
        purpose: "RESET_PASSWORD",
        tokenHash: `t-${randomUUID()}`,
        email: `bob-${process.pid}@example.com`,
        expiresAt: new Date(Date.now() + 3600_000),
      } as never)
      .execute();

    cpSync(path.join(repoMigrations, TEAMS_MIGRATION), path.join(before, TEAMS_MIGRATION), { recursive: true });
    expect(await applyMigrations(pool, before)).toEqual([TEAMS_MIGRATION]);

    // Each account has its owner, the user with its id, holding the credentials it had.
    const users = await db
      .selectFrom("User")
      .select(["id", "email", "passwordHash", "sessionVersion", "emailVerifiedAt", "lastAccountId"])
      .where("id", "in", [alice.id, bob.id])
      .orderBy("email")
      .execute();
    expect(users).toEqual([
      {
        id: alice.id,
        email: `alice-${process.pid}@example.com`,
        passwordHash,
        sessionVersion: 2,
        emailVerifiedAt: new Date("2026-11-01T00:00:00Z"),
        lastAccountId: alice.id,
      },
      {
        id: bob.id,
        email: `bob-${process.pid}@example.com`,
        passwordHash,
        sessionVersion: 0,
        emailVerifiedAt: new Date("2026-11-01T00:00:00Z"),
        lastAccountId: bob.id,
      },
    ]);
    const memberships = await db.selectFrom("Membership").select(["accountId", "userId", "role"]).execute();
    expect(memberships).toEqual(
      expect.arrayContaining([
        { accountId: alice.id, userId: alice.id, role: "owner" },
        { accountId: bob.id, userId: bob.id, role: "owner" },
      ]),
    );
    expect(
      await db
        .selectFrom("ApiKey")
        .select(["createdByUserId", "role", "scope"])
        .where("accountId", "=", alice.id)
        .execute(),
    ).toEqual([{ createdByUserId: alice.id, role: "owner", scope: "full" }]);
    expect(await db.selectFrom("EndedSession").select(["jti", "userId"]).execute()).toEqual([
      { jti: "ended-before", userId: bob.id },
    ]);
    expect(
      await db.selectFrom("AccountToken").select(["accountId", "userId"]).where("accountId", "=", bob.id).execute(),
    ).toEqual([{ accountId: bob.id, userId: bob.id }]);

    // The running version on the migrated database: a session from before still works (and one already too old
    // still does not), the key works as the owner's, the password signs in to the account it always did.
    setConnectionUrl(databaseUrl);
    const session = await authenticate(`Bearer ${current}`);
    expect(session).toMatchObject({ account: { id: alice.id }, user: { id: alice.id }, role: "owner", via: "jwt" });
    await expect(authenticate(`Bearer ${stale}`)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect(await authenticate(`Bearer ${key}`)).toMatchObject({
      account: { id: alice.id },
      role: "owner",
      scope: "full",
      via: "apiKey",
    });
    const login = await logIn({ email: `alice-${process.pid}@example.com`, password });
    expect(login.accountId).toBe(alice.id);
    expect(await authenticate(`Bearer ${login.token}`)).toMatchObject({ account: { id: alice.id }, role: "owner" });
  });
});
