import { describe, expect, it } from "vitest";
import { call, newAccount } from "../support/api";

// GET /api/account with an API key reads the account in the key's own look-up;
// with a login token it is read on its own. Both must show the same account.
describe("GET /api/account: the key's one-statement read and the token's read agree", () => {
  it("same body by API key and by login JWT, counts included", async () => {
    const acct = await newAccount({ companyName: "Same Co" });
    await acct.as("POST", "/api/api-keys", { body: { label: "second" } });
    const byKey = await acct.as("GET", "/api/account");
    const byToken = await call("GET", "/api/account", { token: acct.token });
    expect(byKey.status).toBe(200);
    expect(byToken.status).toBe(200);
    expect(byKey.body).toEqual(byToken.body);
    expect(byKey.body.account._count).toEqual({ phoneNumbers: 0, apiKeys: 2 });
    expect(byKey.body.account.createdAt).toBe(byToken.body.account.createdAt);
  });
});
