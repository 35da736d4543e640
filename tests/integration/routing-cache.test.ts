// Issue #24: an engine instance caches a plain routing (src/server/engine/routing-cache.ts) and inserts
// the next call on it only while the account's routingVersion still matches. The database bumps that
// version on every change that could route a call differently, so each change below must be seen by
// the very next call, through the real server, its real database and the real triggers.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCallSid } from "../../src/twilio-simulator/twilio-simulator";
import { baseUrlOf, newActiveAccount, numberBody, sql, suspend, type TestAccount, seed } from "../support/api";
import { connectTwilioRow } from "../support/connect-twilio";
import { build, now, plus } from "../support/seed";
import { startReceiver } from "../support/receiver";

const XML = (say: string) => `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${say}</Say></Response>`;

let backend: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  // Each path answers with its own name, so a call's answer says which URL was asked.
  backend = await startReceiver((r, res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML(r.path)));
});
afterAll(() => backend?.close());

/** A new inbound call's voice request, unsigned (the account has no Twilio connection unless a test adds one). */
async function voice(account: TestAccount, to: string, callSid = newCallSid()) {
  const res = await fetch(account.engineVoiceUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      CallSid: callSid,
      AccountSid: `AC${"5".repeat(32)}`,
      From: "+14155550100",
      To: to,
      Direction: "inbound",
      CallStatus: "ringing",
    }).toString(),
  });
  return { status: res.status, body: await res.text(), callSid };
}

/** routekit_engine_routing_total{source} on the permissive server (its /metrics answers this machine). */
async function routed(source: "cached" | "stale" | "read"): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    http
      .get(`${baseUrlOf("permissive")}/metrics`, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve(body));
      })
      .on("error", reject);
  });
  const line = text.split("\n").find((l) => l.startsWith(`routekit_engine_routing_total{source="${source}"}`));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

const version = async (account: TestAccount) =>
  (await sql("permissive").query(`SELECT "routingVersion"::text AS v FROM "Account" WHERE id = $1`, [account.id]))
    .rows[0].v as string;

async function plainNumber() {
  const account = await newActiveAccount({ server: "permissive" });
  const start = `/${account.id}/start`;
  const created = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({ onCallStartUrl: backend.url(start), onCallEndUrl: backend.url(`/${account.id}/end`) }),
  });
  expect(created.status, created.text).toBe(201);
  return {
    account,
    to: created.body.phoneNumber.phoneNumber as string,
    id: created.body.phoneNumber.id as string,
    start,
  };
}

describe("the engine's routing cache", () => {
  it("a number's next call is inserted on the cached routing, and a change of its URLs is seen by the call after it", async () => {
    const { account, to, id, start } = await plainNumber();
    expect((await voice(account, to)).body).toBe(XML(start));
    // The other test files share this server, so the counter is compared, not read exactly.
    const cachedBefore = await routed("cached");
    const second = await voice(account, to);
    expect(second.body).toBe(XML(start));
    expect(await routed("cached")).toBeGreaterThan(cachedBefore);
    // The call inserted on the cache is a call like any other.
    const listed = await account.as("GET", `/api/calls/${second.callSid}`);
    expect(listed.status).toBe(200);
    expect(listed.body.call).toMatchObject({ callSid: second.callSid, direction: "inbound", to, phoneNumberId: id });

    const moved = `/${account.id}/moved`;
    const patched = await account.as("PATCH", `/api/phone-numbers/${id}`, {
      body: { onCallStartUrl: backend.url(moved) },
    });
    expect(patched.status, patched.text).toBe(200);
    expect((await voice(account, to)).body).toBe(XML(moved));
    expect((await voice(account, to)).body).toBe(XML(moved));
  });

  it("limits, a Twilio connection, suspension and a removed number each reach the next call", async () => {
    const { account, to, id, start } = await plainNumber();
    await voice(account, to);
    expect((await voice(account, to)).body).toBe(XML(start));

    // A concurrency cap: the next call is admitted against the live count, which the cached insert never does.
    const limited = await account.as("PUT", "/api/account/limits", { body: { maxConcurrentCalls: 5 } });
    expect(limited.status, limited.text).toBe(200);
    const live = async () => (await account.as("GET", "/api/account/limits")).body.current.liveCalls as number;
    const liveBefore = await live();
    expect((await voice(account, to)).body).toBe(XML(start));
    expect(await live()).toBe(liveBefore + 1);
    expect((await account.as("PUT", "/api/account/limits", { body: {} })).status).toBe(200);
    await voice(account, to);
    expect((await voice(account, to)).body).toBe(XML(start));

    // A Twilio connection: every request must now be signed with its token, so this unsigned one is refused.
    await connectTwilioRow({ accountId: account.id, accountSid: `AC${"6".repeat(32)}`, authToken: "a-token" });
    expect((await voice(account, to)).status).toBe(403);
    await seed("permissive").run(build.deleteFrom("TwilioConnection").where("accountId", "=", account.id));
    await voice(account, to);
    expect((await voice(account, to)).body).toBe(XML(start));

    // Suspended (billing): rejected, and the backend is not asked.
    const asked = backend.received.filter((r) => r.path === start).length;
    await suspend(account);
    expect((await voice(account, to)).body).toMatch(/<Reject/);
    await seed("permissive").update("Account", { id: account.id }, { status: "ACTIVE" });
    await voice(account, to);
    expect((await voice(account, to)).body).toBe(XML(start));

    // The number removed: rejected as not registered, and again the backend is not asked.
    const removed = await account.as("DELETE", `/api/phone-numbers/${id}`);
    expect(removed.status, removed.text).toBeLessThan(300);
    expect((await voice(account, to)).body).toMatch(/<Reject/);
    expect(backend.received.filter((r) => r.path === start).length).toBe(asked + 2);
  });

  it("a SID already recorded is not inserted twice on the cache: five retries at once make one call and five answers", async () => {
    const { account, to, start } = await plainNumber();
    await voice(account, to);
    const callSid = newCallSid();
    const answers = await Promise.all(Array.from({ length: 5 }, () => voice(account, to, callSid)));
    for (const a of answers) expect(a.status).toBe(200);
    expect(answers.filter((a) => a.body === XML(start)).length).toBeGreaterThan(0);
    const { rows } = await sql("permissive").query(`SELECT count(*)::int AS n FROM "Call" WHERE "callSid" = $1`, [
      callSid,
    ]);
    expect(rows[0].n).toBe(1);
  });

  it("the database bumps routingVersion for a routing change, and not for a call's counters", async () => {
    const { account, id } = await plainNumber();
    const db = seed("permissive");
    let v = await version(account);
    const bumped = async (what: string, change: () => Promise<unknown>) => {
      await change();
      const current = await version(account);
      const changed = current !== v;
      v = current;
      return [what, changed];
    };
    expect(
      await bumped("number's URL", () => db.update("PhoneNumber", { id }, { onCallStartUrl: "https://b.example/s" })),
    ).toEqual(["number's URL", true]);
    expect(
      await bumped("number's updatedAt alone", () => db.update("PhoneNumber", { id }, { updatedAt: now() })),
    ).toEqual(["number's updatedAt alone", false]);
    expect(await bumped("limits added", () => db.accountLimit({ accountId: account.id }))).toEqual([
      "limits added",
      true,
    ]);
    expect(
      await bumped("admission's live count", () =>
        db.update("AccountLimit", { accountId: account.id }, { liveCalls: plus(1) }),
      ),
    ).toEqual(["admission's live count", false]);
    expect(
      await bumped("hard cap", () => db.update("AccountLimit", { accountId: account.id }, { hardCap: true })),
    ).toEqual(["hard cap", true]);
    expect(
      await bumped("limits removed", () =>
        db.run(build.deleteFrom("AccountLimit").where("accountId", "=", account.id)),
      ),
    ).toEqual(["limits removed", true]);
    await connectTwilioRow({ accountId: account.id, accountSid: `AC${"7".repeat(32)}`, authToken: "t" });
    expect((await version(account)) !== v).toBe(true);
    v = await version(account);
    expect(
      await bumped("reconciliation's mark", () =>
        db.update("TwilioConnection", { accountId: account.id }, { reconciledThrough: now() }),
      ),
    ).toEqual(["reconciliation's mark", false]);
    expect(
      await bumped("the account's row", () => db.update("Account", { id: account.id }, { companyName: "Renamed" })),
    ).toEqual(["the account's row", true]);
    expect(
      await bumped("a number added", () =>
        db.phoneNumber({ accountId: account.id, phoneNumber: numberBody().phoneNumber }),
      ),
    ).toEqual(["a number added", true]);
  });
});
