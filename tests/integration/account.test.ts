import { describe, expect, it } from "vitest";
import { call, newAccount } from "../support/api";

describe("GET /api/account", () => {
  it("happy: the account with webhookSecret, engineVoiceUrl and _count", async () => {
    const acct = await newAccount({ companyName: "Acme Ltd" });
    const res = await acct.as("GET", "/api/account");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      account: {
        id: acct.id,
        email: acct.email,
        companyName: "Acme Ltd",
        status: "INACTIVE",
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        webhookSecret: expect.stringMatching(/^whsec_/),
        engineVoiceUrl: acct.engineVoiceUrl,
        _count: { phoneNumbers: 0, apiKeys: 1 },
      },
    });
    const again = await acct.as("GET", "/api/account");
    expect(again.body.account.webhookSecret).toBe(res.body.account.webhookSecret);
  });

  it("happy: _count.apiKeys follows creation and revocation", async () => {
    const acct = await newAccount();
    const created = await acct.as("POST", "/api/api-keys", { body: { label: "ci" } });
    expect((await acct.as("GET", "/api/account")).body.account._count.apiKeys).toBe(2);
    await acct.as("DELETE", `/api/api-keys/${created.body.id}`);
    expect((await acct.as("GET", "/api/account")).body.account._count.apiKeys).toBe(1);
  });

  describe("security", () => {
    it("401 without a key, with garbage, with a key that fails its checksum", async () => {
      const acct = await newAccount();
      for (const token of [
        null,
        "garbage",
        `rtk_${"a".repeat(49)}`,
        acct.apiKey.slice(0, -1) + (acct.apiKey.endsWith("a") ? "b" : "a"),
      ]) {
        const res = await call("GET", "/api/account", { token });
        expect(res.status, String(token)).toBe(401);
        expect(res.body.error.code).toBe("UNAUTHORIZED");
      }
      const basic = await call("GET", "/api/account", {
        headers: { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` },
      });
      expect(basic.status).toBe(401);
    });

    it("401 for a JWT signed with another secret or tampered with", async () => {
      const acct = await newAccount();
      const [h, p, s] = acct.token.split(".");
      const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
      const forged = [h, Buffer.from(JSON.stringify({ ...claims, sub: "someone-else" })).toString("base64url"), s].join(
        ".",
      );
      expect((await call("GET", "/api/account", { token: forged })).status).toBe(401);
      const none = [Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url"), p, ""].join(".");
      expect((await call("GET", "/api/account", { token: none })).status).toBe(401);
    });

    it("rejects a checkout link token presented as a login token", async () => {
      const acct = await newAccount();
      const checkoutToken = acct.checkoutUrl.split("/").pop()!;
      expect((await call("GET", "/api/account", { token: checkoutToken })).status).toBe(401);
    });

    it("each key sees only its own account", async () => {
      const a = await newAccount();
      const b = await newAccount();
      expect((await a.as("GET", "/api/account")).body.account.id).toBe(a.id);
      expect((await b.as("GET", "/api/account")).body.account.id).toBe(b.id);
    });
  });
});
