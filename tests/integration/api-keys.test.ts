import { describe, expect, it } from "vitest";
import { call, newAccount, sql, seed } from "../support/api";
import { ago } from "../support/seed";

describe("POST /api/api-keys", () => {
  describe("happy", () => {
    it("returns the full key once; it works at once", async () => {
      const acct = await newAccount();
      const res = await acct.as("POST", "/api/api-keys", { body: { label: "CI pipeline" } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        key: expect.stringMatching(/^rtk_[0-9A-Za-z]{49}$/),
        keyPrefix: res.body.key.slice(0, 12),
        label: "CI pipeline",
        scope: "full",
        expiresAt: null,
        // Made with the owner's Default key: it acts as the owner (docs/decisions.md §18).
        role: "owner",
        createdAt: expect.any(String),
      });
      const me = await call("GET", "/api/account", { token: res.body.key });
      expect(me.body.account.id).toBe(acct.id);
    });

    it("a read-only key with an expiry: both are answered, listed, and kept (decisions §18)", async () => {
      const acct = await newAccount();
      const expiresAt = new Date(Date.now() + 30 * 24 * 3600_000).toISOString();
      const res = await acct.as("POST", "/api/api-keys", { body: { label: "reports", scope: "read-only", expiresAt } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ scope: "read-only", expiresAt });
      const listed = (await acct.as("GET", "/api/api-keys")).body.apiKeys;
      expect(listed.find((k: { id: string }) => k.id === res.body.id)).toMatchObject({ scope: "read-only", expiresAt });
      // The key registration made (and any made before scopes existed) is full and never expires.
      expect(listed.find((k: { label: string }) => k.label === "Default")).toMatchObject({
        scope: "full",
        expiresAt: null,
      });
    });

    it("label is optional; an empty body is fine", async () => {
      const acct = await newAccount();
      const res = await acct.as("POST", "/api/api-keys");
      expect(res.status).toBe(201);
      expect(res.body.label).toBeNull();
    });
  });

  describe("error", () => {
    it("400 for a label that is not a string or too long", async () => {
      const acct = await newAccount();
      const wrongType = await acct.as("POST", "/api/api-keys", { body: { label: 5 } });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.error.details[0].path).toBe("label");
      expect((await acct.as("POST", "/api/api-keys", { body: { label: "x".repeat(101) } })).status).toBe(400);
    });

    it("400 for an unknown scope, an expiry in the past, or one that is not a time", async () => {
      const acct = await newAccount();
      const scope = await acct.as("POST", "/api/api-keys", { body: { scope: "admin" } });
      expect(scope.status).toBe(400);
      expect(scope.body.error.details[0].path).toBe("scope");
      const past = await acct.as("POST", "/api/api-keys", { body: { expiresAt: "2020-01-01T00:00:00Z" } });
      expect(past.status).toBe(400);
      expect(past.body.error).toMatchObject({ code: "VALIDATION_FAILED", details: [{ path: "expiresAt" }] });
      const garbage = await acct.as("POST", "/api/api-keys", { body: { expiresAt: "next tuesday" } });
      expect(garbage.status).toBe(400);
      expect(garbage.body.error.details[0].path).toBe("expiresAt");
      // Nothing was made by the refused requests.
      expect((await acct.as("GET", "/api/api-keys")).body.apiKeys).toHaveLength(1);
    });
  });

  describe("security", () => {
    it("401 without a valid key", async () => {
      expect((await call("POST", "/api/api-keys", { body: {} })).status).toBe(401);
    });
  });
});

describe("GET /api/api-keys", () => {
  describe("happy", () => {
    it("lists active keys oldest first, prefixes only, with lastUsedAt", async () => {
      const acct = await newAccount();
      const second = await acct.as("POST", "/api/api-keys", { body: { label: "second" } });
      const res = await acct.as("GET", "/api/api-keys");
      expect(res.status).toBe(200);
      expect(res.body.apiKeys.map((k: { label: string }) => k.label)).toEqual(["Default", "second"]);
      for (const k of res.body.apiKeys) {
        expect(Object.keys(k).sort()).toEqual([
          "createdAt",
          "createdBy",
          "expiresAt",
          "id",
          "keyPrefix",
          "label",
          "lastUsedAt",
          "role",
          "scope",
        ]);
        // Both were made by the person who registered: the Default key at registration, the second with it.
        expect(k.createdBy).toEqual({ userId: expect.any(String), email: acct.email });
        expect(k.role).toBe("owner");
      }
      expect(res.text).not.toContain(acct.apiKey);
      expect(res.text).not.toContain(second.body.key);
      expect(res.body.apiKeys[0].lastUsedAt).not.toBeNull(); // the Default key made this request
      expect(res.body.apiKeys[1].lastUsedAt).toBeNull();
    });

    it("writes lastUsedAt at most once a minute", async () => {
      const acct = await newAccount();
      await acct.as("GET", "/api/account");
      const first = (await sql().query(`SELECT "lastUsedAt" FROM "ApiKey" WHERE "accountId" = $1`, [acct.id])).rows[0]
        .lastUsedAt;
      for (let i = 0; i < 3; i++) await acct.as("GET", "/api/account");
      const after = (await sql().query(`SELECT "lastUsedAt" FROM "ApiKey" WHERE "accountId" = $1`, [acct.id])).rows[0]
        .lastUsedAt;
      expect(after.getTime()).toBe(first.getTime());
      // Pretend the last write was two minutes ago: the next use writes again.
      await seed().update("ApiKey", { accountId: acct.id }, { lastUsedAt: ago("2 minutes") });
      await acct.as("GET", "/api/account");
      const refreshed = (await sql().query(`SELECT "lastUsedAt" FROM "ApiKey" WHERE "accountId" = $1`, [acct.id]))
        .rows[0].lastUsedAt;
      expect(Date.now() - refreshed.getTime()).toBeLessThan(60_000);
      // Written again, not left at the first write (which is also within the minute).
      expect(refreshed.getTime()).toBeGreaterThan(first.getTime());
    });
  });

  describe("security", () => {
    it("another account's keys never appear", async () => {
      const a = await newAccount();
      const b = await newAccount();
      await b.as("POST", "/api/api-keys", { body: { label: "b-only" } });
      const list = await a.as("GET", "/api/api-keys");
      expect(list.body.apiKeys).toHaveLength(1);
      expect(list.text).not.toContain("b-only");
    });
  });
});

describe("DELETE /api/api-keys/:id", () => {
  describe("happy", () => {
    it("revokes; the key stops working on the next request", async () => {
      const acct = await newAccount();
      const extra = await acct.as("POST", "/api/api-keys", { body: { label: "temp" } });
      expect((await call("GET", "/api/account", { token: extra.body.key })).status).toBe(200);
      const res = await acct.as("DELETE", `/api/api-keys/${extra.body.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ revoked: true });
      expect((await call("GET", "/api/account", { token: extra.body.key })).status).toBe(401);
      const list = await acct.as("GET", "/api/api-keys");
      expect(list.body.apiKeys.map((k: { id: string }) => k.id)).not.toContain(extra.body.id);
    });

    it("a key can revoke itself; the account still logs in", async () => {
      const acct = await newAccount();
      const keys = await acct.as("GET", "/api/api-keys");
      expect((await acct.as("DELETE", `/api/api-keys/${keys.body.apiKeys[0].id}`)).status).toBe(200);
      expect((await acct.as("GET", "/api/account")).status).toBe(401);
      const login = await call("POST", "/api/auth/login", { body: { email: acct.email, password: acct.password } });
      expect((await call("GET", "/api/api-keys", { token: login.body.token })).status).toBe(200);
    });
  });

  describe("error", () => {
    it("404 for an unknown id and for a key already revoked", async () => {
      const acct = await newAccount();
      expect((await acct.as("DELETE", "/api/api-keys/does-not-exist")).body.error.code).toBe("NOT_FOUND");
      const extra = await acct.as("POST", "/api/api-keys");
      await acct.as("DELETE", `/api/api-keys/${extra.body.id}`);
      expect((await acct.as("DELETE", `/api/api-keys/${extra.body.id}`)).status).toBe(404);
    });
  });

  describe("security", () => {
    it("another account's key id is a 404 and stays valid", async () => {
      const a = await newAccount();
      const b = await newAccount();
      const bKeys = await b.as("GET", "/api/api-keys");
      const res = await a.as("DELETE", `/api/api-keys/${bKeys.body.apiKeys[0].id}`);
      expect(res.status).toBe(404);
      expect((await b.as("GET", "/api/account")).status).toBe(200);
    });

    it("accepts the login JWT like a key", async () => {
      const acct = await newAccount();
      const extra = await acct.as("POST", "/api/api-keys");
      const res = await call("DELETE", `/api/api-keys/${extra.body.id}`, { token: acct.token });
      expect(res.status).toBe(200);
    });
  });
});

describe("scoped and expiring keys (docs/decisions.md §18)", () => {
  describe("security", () => {
    it("a read-only key reads every GET route it is given, and is refused 403 FORBIDDEN on anything else", async () => {
      const acct = await newAccount();
      const key = (await acct.as("POST", "/api/api-keys", { body: { scope: "read-only" } })).body.key as string;
      for (const path of [
        "/api/account",
        "/api/api-keys",
        "/api/phone-numbers",
        "/api/calls",
        "/api/webhook-deliveries",
      ]) {
        expect((await call("GET", path, { token: key })).status, path).toBe(200);
      }
      const defaultKey = (await acct.as("GET", "/api/api-keys")).body.apiKeys.find(
        (k: { label: string }) => k.label === "Default",
      );
      const writes: [string, string, unknown][] = [
        ["POST", "/api/api-keys", { scope: "full" }],
        ["DELETE", `/api/api-keys/${defaultKey.id}`, undefined],
        ["POST", "/api/phone-numbers", { phoneNumber: "+14155550199" }],
        ["POST", "/api/account/webhook-secret", undefined],
        ["PUT", "/api/account/limits", { monthlySpendCapCents: 100 }],
        ["POST", "/api/webhook-endpoints", { url: "https://example.com/hook", eventTypes: ["*"] }],
      ];
      for (const [method, path, body] of writes) {
        const res = await call(method as "POST", path, { token: key, body });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.error.code, `${method} ${path}`).toBe("FORBIDDEN");
      }
      // It minted nothing and revoked nothing: the account holds its Default key and the read-only one.
      const keys = (await acct.as("GET", "/api/api-keys")).body.apiKeys;
      expect(keys.map((k: { scope: string }) => k.scope).sort()).toEqual(["full", "read-only"]);
    });

    it("an expired key is refused 401 with when it expired; a key still in date works", async () => {
      const acct = await newAccount();
      const soon = new Date(Date.now() + 3600_000).toISOString();
      const made = (await acct.as("POST", "/api/api-keys", { body: { expiresAt: soon } })).body;
      expect((await call("GET", "/api/account", { token: made.key })).status).toBe(200);
      await seed().update("ApiKey", { id: made.id }, { expiresAt: ago("1 second") });
      const refused = await call("GET", "/api/account", { token: made.key });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe("UNAUTHORIZED");
      expect(refused.body.error.message).toMatch(/expired at/);
      // Still listed, with its expiry, until it is revoked.
      const listed = (await acct.as("GET", "/api/api-keys")).body.apiKeys;
      expect(listed.find((k: { id: string }) => k.id === made.id)).toBeTruthy();
    });
  });
});
