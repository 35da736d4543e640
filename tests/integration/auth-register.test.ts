import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { call, newAccount, randomIp, sql, uniqueEmail } from "../support/api";

describe("POST /api/auth/register", () => {
  describe("happy", () => {
    it("creates an INACTIVE account with a key, a token, a checkout URL and an engine URL", async () => {
      const email = uniqueEmail();
      const res = await call("POST", "/api/auth/register", {
        body: { email, password: "correct horse", companyName: "Acme" },
      });
      expect(res.status).toBe(201);
      expect(res.body.account).toEqual({ id: expect.any(String), email, companyName: "Acme", status: "INACTIVE" });
      expect(res.body.apiKey).toMatch(/^rtk_[0-9A-Za-z]{49}$/);
      expect(res.body.token.split(".")).toHaveLength(3);
      expect(res.body.checkoutUrl).toMatch(new RegExp(`^${inject("baseUrl")}/billing/checkout/`));
      expect(res.body.engineVoiceUrl).toMatch(
        new RegExp(`^${inject("baseUrl")}/api/engine/voice/rt_[A-Za-z0-9_-]{32}$`),
      );
    });

    it("makes the returned key work at once, labelled Default", async () => {
      const acct = await newAccount();
      const account = await acct.as("GET", "/api/account");
      expect(account.status).toBe(200);
      expect(account.body.account.email).toBe(acct.email);
      const keys = await acct.as("GET", "/api/api-keys");
      expect(keys.body.apiKeys).toHaveLength(1);
      expect(keys.body.apiKeys[0].label).toBe("Default");
      expect(acct.apiKey.startsWith(keys.body.apiKeys[0].keyPrefix)).toBe(true);
    });

    it("lower-cases the email and makes companyName optional", async () => {
      const email = uniqueEmail();
      const res = await call("POST", "/api/auth/register", {
        body: { email: `  ${email.toUpperCase()} `, password: "password1" },
      });
      expect(res.status).toBe(201);
      expect(res.body.account.email).toBe(email);
      expect(res.body.account.companyName).toBeNull();
    });
  });

  describe("error", () => {
    it("rejects a short password with details naming the field", async () => {
      const res = await call("POST", "/api/auth/register", { body: { email: uniqueEmail(), password: "short" } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.body.error.details).toEqual([{ path: "password", message: "must be at least 8 characters" }]);
    });

    it("rejects a bad email and missing fields", async () => {
      const bad = await call("POST", "/api/auth/register", { body: { email: "not-an-email", password: "password1" } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].path).toBe("email");
      const missing = await call("POST", "/api/auth/register", { body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["email", "password"]);
    });

    it("answers 409 EMAIL_TAKEN for a duplicate, whatever its case", async () => {
      const email = uniqueEmail();
      expect((await call("POST", "/api/auth/register", { body: { email, password: "password1" } })).status).toBe(201);
      const dup = await call("POST", "/api/auth/register", {
        body: { email: email.toUpperCase(), password: "password2" },
      });
      expect(dup.status).toBe(409);
      expect(dup.body.error.code).toBe("EMAIL_TAKEN");
    });

    it("creates exactly one account when the same email registers twice at once", async () => {
      const email = uniqueEmail();
      const results = await Promise.all(
        [0, 1, 2].map(() => call("POST", "/api/auth/register", { body: { email, password: "password1" } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      const { rows } = await sql().query(`SELECT count(*)::int AS n FROM "Account" WHERE email = $1`, [email]);
      expect(rows[0].n).toBe(1);
    });

    it("rate-limits registration to 10 a minute per IP with Retry-After", async () => {
      const ip = randomIp();
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 11; i++) {
        last = await call("POST", "/api/auth/register", { ip, body: { email: "x", password: "password1" } });
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 10).every((s) => s === 400)).toBe(true);
      expect(last!.status).toBe(429);
      expect(last!.body.error.code).toBe("RATE_LIMITED");
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    });
  });

  describe("security", () => {
    it("stores an argon2id hash, a hashed key and an encrypted webhook secret; never the plaintext", async () => {
      const acct = await newAccount();
      const { rows } = await sql().query(`SELECT * FROM "Account" WHERE id = $1`, [acct.id]);
      const row = rows[0];
      // The password is the user's (docs/decisions.md §18): the account holds none.
      const { rows: users } = await sql().query(`SELECT * FROM "User" WHERE email = $1`, [acct.email]);
      expect(users[0].passwordHash).toMatch(/^\$argon2id\$/);
      expect(row).not.toHaveProperty("passwordHash");
      expect(JSON.stringify([row, users[0]])).not.toContain(acct.password);
      const secret = (await acct.as("GET", "/api/account")).body.account.webhookSecret;
      expect(JSON.stringify(row)).not.toContain(secret.slice(6));
      const keys = await sql().query(`SELECT * FROM "ApiKey" WHERE "accountId" = $1`, [acct.id]);
      expect(JSON.stringify(keys.rows)).not.toContain(acct.apiKey);
      expect(keys.rows[0].keyHash).toMatch(/^[0-9a-f]{64}$/);
    });

    it("never writes passwords, keys, tokens or secrets to the log", async () => {
      const acct = await newAccount();
      const account = await acct.as("GET", "/api/account");
      await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } });
      await new Promise((r) => setTimeout(r, 300)); // let the log flush
      const log = readFileSync(inject("serverLog"), "utf8");
      expect(log).toContain('"path":"/api/account"');
      for (const secret of [acct.password, acct.apiKey, acct.token, account.body.account.webhookSecret]) {
        expect(log).not.toContain(secret);
      }
      expect(log).not.toContain(acct.engineVoiceUrl.split("/").pop());
    });
  });
});
