import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { call, newAccount, seed, sql, type TestAccount } from "../support/api";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

const login = async (email: string, password: string, accountId?: string) =>
  (await call("POST", "/api/auth/login", { body: { email, password, accountId } })).body.token as string;

/** The person who registered the account (docs/decisions.md §18: its first owner). */
const userIdOf = async (acct: TestAccount): Promise<string> =>
  (await sql().query(`SELECT "userId" FROM "Membership" WHERE "accountId" = $1 AND role = 'owner'`, [acct.id])).rows[0]
    .userId;

/** A login token as the service would sign it (its person as subject, the account as `acc`), with claims left out or changed. */
async function craftToken(
  acct: TestAccount,
  opts: { exp?: boolean; iat?: boolean; jti?: boolean; sv?: number | null },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(opts.sv === null ? { acc: acct.id } : { sv: opts.sv ?? 0, acc: acct.id })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(await userIdOf(acct))
    .setIssuer("routekit")
    .setAudience("routekit:login");
  if (opts.iat !== false) jwt = jwt.setIssuedAt(now);
  if (opts.exp !== false) jwt = jwt.setExpirationTime(now + 3600);
  if (opts.jti !== false) jwt = jwt.setJti(crypto.randomUUID());
  return jwt.sign(new TextEncoder().encode(TEST_AUTH_SECRET));
}

describe("POST /api/auth/logout", () => {
  describe("happy", () => {
    it("ends every login token of the account; API keys keep working; a new login works", async () => {
      const acct = await newAccount();
      const first = await login(acct.email, acct.password);
      const second = await login(acct.email, acct.password);
      expect((await call("GET", "/api/account", { token: first })).status).toBe(200);

      const out = await call("POST", "/api/auth/logout", { token: first });
      expect(out.status).toBe(200);
      expect(out.body).toEqual({ loggedOut: true });

      for (const token of [first, second, acct.token]) {
        const res = await call("GET", "/api/account", { token });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe("UNAUTHORIZED");
      }
      expect((await acct.as("GET", "/api/account")).status).toBe(200);
      const fresh = await login(acct.email, acct.password);
      expect((await call("GET", "/api/account", { token: fresh })).status).toBe(200);
    });

    it("ends the person's sessions in every account they belong to", async () => {
      const [a, b] = [await newAccount(), await newAccount()];
      await sql().query(`INSERT INTO "Membership" ("accountId", "userId", role) VALUES ($1, $2, 'developer')`, [
        a.id,
        await userIdOf(b),
      ]);
      const inA = await login(b.email, b.password, a.id);
      const inB = await login(b.email, b.password, b.id);
      expect((await call("GET", "/api/account", { token: inA })).body.account.id).toBe(a.id);
      expect((await call("POST", "/api/auth/logout", { token: inB })).status).toBe(200);
      for (const token of [inA, inB]) expect((await call("GET", "/api/account", { token })).status).toBe(401);
      // The other members of the account are other people: their sessions live.
      expect((await call("GET", "/api/account", { token: a.token })).status).toBe(200);
    });
  });

  describe("error", () => {
    it("an API key is no person: 403 FORBIDDEN, and every session goes on", async () => {
      const acct = await newAccount();
      const token = await login(acct.email, acct.password);
      const res = await acct.as("POST", "/api/auth/logout");
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
      expect((await call("GET", "/api/account", { token })).status).toBe(200);
      expect((await acct.as("GET", "/api/account")).status).toBe(200);
    });

    it("401 without credentials, and for a token already signed out", async () => {
      expect((await call("POST", "/api/auth/logout")).status).toBe(401);
      const acct = await newAccount();
      const token = await login(acct.email, acct.password);
      expect((await call("POST", "/api/auth/logout", { token })).status).toBe(200);
      expect((await call("POST", "/api/auth/logout", { token })).status).toBe(401);
    });
  });

  describe("security", () => {
    it("only the signed-out account's sessions end", async () => {
      const a = await newAccount();
      const b = await newAccount();
      const tokenB = await login(b.email, b.password);
      await call("POST", "/api/auth/logout", { token: await login(a.email, a.password) });
      expect((await call("GET", "/api/account", { token: tokenB })).status).toBe(200);
    });
  });
});

describe("login token claims", () => {
  it("a well-formed token is accepted (the crafting is right), one without exp, iat, jti or sv is refused", async () => {
    const acct = await newAccount();
    expect((await call("GET", "/api/account", { token: await craftToken(acct, {}) })).status).toBe(200);
    for (const missing of [{ exp: false }, { iat: false }, { jti: false }, { sv: null }] as const) {
      const res = await call("GET", "/api/account", { token: await craftToken(acct, missing) });
      expect(res.status, JSON.stringify(missing)).toBe(401);
    }
  });

  it("a token older than the user's session version is refused; the current one is accepted", async () => {
    const acct = await newAccount();
    await seed().update("User", { id: await userIdOf(acct) }, { sessionVersion: 3 });
    expect((await call("GET", "/api/account", { token: await craftToken(acct, { sv: 2 }) })).status).toBe(401);
    expect((await call("GET", "/api/account", { token: await craftToken(acct, { sv: 3 }) })).status).toBe(200);
    expect((await call("GET", "/api/account", { token: await login(acct.email, acct.password) })).status).toBe(200);
  });
});
