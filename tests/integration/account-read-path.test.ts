import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAccount } from "../../src/server/services/accounts/register-account";
import { createCaller } from "../../src/server/trpc/root";
import { call, newAccount } from "../support/api";
import { startInProcess } from "../support/in-process";

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

describe("GET /api/account by API key reads the account once: its contract's readsOwnAccount reaches authentication", () => {
  let inProcess: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    inProcess = await startInProcess();
  });
  afterAll(async () => {
    await inProcess.stop();
  });

  /** The statements that name the Account table while `run` runs, seen on the process's one pool. */
  async function accountStatements(run: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string } | undefined;
      const text = typeof first === "string" ? first : (first?.text ?? "");
      if (text.includes('"Account"')) seen.push(text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await run();
    } finally {
      pg.Client.prototype.query = query;
    }
    return seen;
  }

  it("one statement reads the key and the account (without readsOwnAccount on its contract, two would)", async () => {
    const { apiKey } = await registerAccount({
      email: `read-path-${randomBytes(6).toString("hex")}@example.com`,
      password: "correct horse battery staple",
      companyName: "Read Path Co",
    });
    const caller = createCaller({ requestId: "read-path", ip: "127.0.0.1", authorization: `Bearer ${apiKey}` });
    await caller.account.get(); // records the key's first use; the next request only reads
    expect(await accountStatements(() => caller.account.get())).toHaveLength(1);
  });
});
