import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { call, newAccount, seed } from "../support/api";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

const login = async (email: string, password: string) =>
  (await call("POST", "/api/auth/login", { body: { email, password } })).body.token as string;

/** A login token as the service would sign it, with claims left out or changed. */
async function craftToken(
  accountId: string,
  opts: { exp?: boolean; iat?: boolean; jti?: boolean; sv?: number | null },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(opts.sv === null ? {} : { sv: opts.sv ?? 0 })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(accountId)
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

    it("with an API key it signs out every session too, and the key itself keeps working", async () => {
      const acct = await newAccount();
      const token = await login(acct.email, acct.password);
      expect((await acct.as("POST", "/api/auth/logout")).status).toBe(200);
      expect((await call("GET", "/api/account", { token })).status).toBe(401);
      expect((await acct.as("GET", "/api/account")).status).toBe(200);
    });
  });

  describe("error", () => {
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
    expect((await call("GET", "/api/account", { token: await craftToken(acct.id, {}) })).status).toBe(200);
    for (const missing of [{ exp: false }, { iat: false }, { jti: false }, { sv: null }] as const) {
      const res = await call("GET", "/api/account", { token: await craftToken(acct.id, missing) });
      expect(res.status, JSON.stringify(missing)).toBe(401);
    }
  });

  it("a token older than the account's session version is refused; the current one is accepted", async () => {
    const acct = await newAccount();
    await seed().update("Account", { id: acct.id }, { sessionVersion: 3 });
    expect((await call("GET", "/api/account", { token: await craftToken(acct.id, { sv: 2 }) })).status).toBe(401);
    expect((await call("GET", "/api/account", { token: await craftToken(acct.id, { sv: 3 }) })).status).toBe(200);
    expect((await call("GET", "/api/account", { token: await login(acct.email, acct.password) })).status).toBe(200);
  });
});
