import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCallSid } from "../../src/twilio-simulator/twilio-simulator";
import { pruneAuditLog } from "../../src/server/services/audit/prune-audit-log";
import {
  type ApiResponse,
  newAccount,
  newActiveAccount,
  newMember,
  numberBody,
  randomUsNumber,
  seed,
  sql,
  type TestAccount,
} from "../support/api";
import { ago, build } from "../support/seed";
import { startInProcess } from "../support/in-process";
import {
  type SimulatedCustomer,
  type SimulatedTwilioServer,
  startSimulatedTwilioServer,
} from "../support/simulated-twilio-server";
import { until } from "../support/until";

// docs/decisions.md §18: every change to an account leaves one entry, written in the change's own
// transaction, read back through GET /api/audit-log (admin and owner only) with cursor pages and filters.

type Entry = {
  id: string;
  action: string;
  actor: { type: string; userId: string | null; email: string | null; keyPrefix: string | null };
  target: { type: string; id: string | null };
  details: Record<string, unknown> | null;
  ip: string | null;
  createdAt: string;
};

async function entries(account: TestAccount, query = ""): Promise<Entry[]> {
  const res = await account.as("GET", `/api/audit-log${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.entries;
}

async function only(account: TestAccount, action: string): Promise<Entry> {
  const found = await entries(account, `?action=${action}`);
  expect(found, `${action} entries`).toHaveLength(1);
  return found[0]!;
}

const prefixOf = (key: string) => key.slice(0, 12);

function expectByKey(e: Entry, account: TestAccount) {
  expect(e.actor).toEqual({ type: "api_key", userId: null, email: null, keyPrefix: prefixOf(account.apiKey) });
  expect(e.ip).toBe(account.ip);
  expect(Date.now() - Date.parse(e.createdAt)).toBeLessThan(60_000);
}

function expectNoSecret(res: ApiResponse, ...secrets: string[]) {
  for (const s of secrets) expect(res.text).not.toContain(s);
}

describe("the changes recorded, with who, what, the target, the address and the time", () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newActiveAccount();
  });

  it("phone numbers registered, changed and released", async () => {
    const created = await account.as("POST", "/api/phone-numbers", { body: numberBody() });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.phoneNumber.id;
    const c = await only(account, "phone_number.created");
    expectByKey(c, account);
    expect(c.target).toEqual({ type: "phone_number", id });
    expect(c.details).toMatchObject({ phoneNumber: created.body.phoneNumber.phoneNumber, verified: false });

    const patched = await account.as("PATCH", `/api/phone-numbers/${id}`, {
      body: { onCallStartUrl: "https://api.example.com/next?token=s3cr3t-in-url", dailyMinuteCap: 120 },
    });
    expect(patched.status, patched.text).toBe(200);
    const u = await only(account, "phone_number.updated");
    expect(u.target).toEqual({ type: "phone_number", id });
    expect(u.details).toMatchObject({ changed: ["onCallStartUrl", "dailyMinuteCap"], dailyMinuteCap: 120 });
    expectNoSecret(await account.as("GET", "/api/audit-log"), "s3cr3t-in-url");

    expect((await account.as("DELETE", `/api/phone-numbers/${id}`)).status).toBe(200);
    const d = await only(account, "phone_number.deleted");
    expect(d.target).toEqual({ type: "phone_number", id });
  });

  it("webhook endpoints created, changed, rotated and deleted, never with a secret", async () => {
    const created = await account.as("POST", "/api/webhook-endpoints", {
      body: { url: "https://hooks.example.com/routekit?key=url-held-token", eventTypes: ["call.ended"] },
    });
    expect(created.status, created.text).toBe(201);
    const { id, secret } = created.body.webhookEndpoint;
    const c = await only(account, "webhook_endpoint.created");
    expectByKey(c, account);
    expect(c.target).toEqual({ type: "webhook_endpoint", id });
    expect(c.details).toEqual({ url: "https://hooks.example.com/routekit", eventTypes: ["call.ended"] });

    expect((await account.as("PATCH", `/api/webhook-endpoints/${id}`, { body: { enabled: false } })).status).toBe(200);
    expect((await only(account, "webhook_endpoint.updated")).details).toMatchObject({
      changed: ["enabled"],
      enabled: false,
    });

    const rotated = await account.as("POST", `/api/webhook-endpoints/${id}/secret`, { body: {} });
    expect(rotated.status, rotated.text).toBe(200);
    expect((await only(account, "webhook_endpoint.secret_rotated")).target).toEqual({ type: "webhook_endpoint", id });

    expect((await account.as("DELETE", `/api/webhook-endpoints/${id}`)).status).toBe(200);
    expect((await only(account, "webhook_endpoint.deleted")).target).toEqual({ type: "webhook_endpoint", id });
    expectNoSecret(await account.as("GET", "/api/audit-log"), secret, rotated.body.secret, "url-held-token");
  });

  it("API keys created and revoked, by prefix only", async () => {
    const made = await account.as("POST", "/api/api-keys", { body: { label: "CI", scope: "read-only" } });
    expect(made.status, made.text).toBe(201);
    const c = await only(account, "api_key.created");
    expectByKey(c, account);
    expect(c.target).toEqual({ type: "api_key", id: made.body.id });
    expect(c.details).toMatchObject({ keyPrefix: made.body.keyPrefix, label: "CI", scope: "read-only" });

    expect((await account.as("DELETE", `/api/api-keys/${made.body.id}`)).status).toBe(200);
    expect((await only(account, "api_key.revoked")).details).toMatchObject({ keyPrefix: made.body.keyPrefix });
    expectNoSecret(await account.as("GET", "/api/audit-log"), made.body.key);
  });

  it("the webhook secret and engine URL rotated, limits and alert settings changed", async () => {
    const secret = await account.as("POST", "/api/account/webhook-secret", { body: {} });
    expect(secret.status, secret.text).toBe(200);
    expect((await only(account, "account.webhook_secret_rotated")).target).toEqual({ type: "account", id: account.id });
    expect((await account.as("POST", "/api/account/webhook-secret", { body: { expirePrevious: true } })).status).toBe(
      200,
    );
    await only(account, "account.webhook_secret_previous_expired");

    const engine = await account.as("POST", "/api/account/engine-url");
    expect(engine.status, engine.text).toBe(200);
    await only(account, "account.engine_url_rotated");

    expect(
      (await account.as("PUT", "/api/account/limits", { body: { monthlyBudget: 300, hardCap: true } })).status,
    ).toBe(200);
    const limits = await only(account, "account.limits_changed");
    expect(limits.details).toMatchObject({
      before: { monthlyBudget: null, hardCap: false },
      after: { monthlyBudget: 300, hardCap: true },
    });

    const switches = { email: { "alert.delivery_exhausted": false } };
    expect((await account.as("PUT", "/api/account/alert-settings", { body: switches })).status).toBe(200);
    expect((await only(account, "account.alert_settings_changed")).details).toEqual({
      emailOff: ["alert.delivery_exhausted"],
    });

    const log = await account.as("GET", "/api/audit-log");
    expectNoSecret(
      log,
      secret.body.webhookSecret,
      engine.body.engineVoiceUrl,
      engine.body.engineVoiceUrl.split("/").pop()!,
    );
  });

  it("billing links issued (the link itself never recorded)", async () => {
    const checkout = await account.as("POST", "/api/billing/checkout");
    expect(checkout.status, checkout.text).toBe(200);
    expect((await only(account, "billing.checkout_link_issued")).target).toEqual({ type: "billing", id: null });
    const portal = await account.as("POST", "/api/billing/portal");
    expect(portal.status, portal.text).toBe(200);
    await only(account, "billing.portal_link_issued");
    expectNoSecret(await account.as("GET", "/api/audit-log"), checkout.body.url, portal.body.url);
  });

  it("deliveries retried and replayed", async () => {
    const endpoint = await account.as("POST", "/api/webhook-endpoints", {
      body: { url: "https://hooks.example.com/unreachable", eventTypes: ["call.ended"] },
    });
    const sent = await account.as("POST", "/api/webhook-deliveries/test", {
      body: { endpointId: endpoint.body.webhookEndpoint.id, type: "call.ended" },
    });
    expect(sent.status, sent.text).toBe(200);
    const deliveryId: string = sent.body.delivery.id;
    expect((await account.as("POST", `/api/webhook-deliveries/${deliveryId}/retry`)).status).toBe(200);
    expect((await only(account, "webhook_delivery.retried")).target).toEqual({
      type: "webhook_delivery",
      id: deliveryId,
    });

    const endpointId: string = endpoint.body.webhookEndpoint.id;
    const failed = await account.as("POST", "/api/webhook-deliveries/test", {
      body: { endpointId, type: "call.ended" },
    });
    expect(failed.body.delivery.status).toBe("FAILED");
    const since = new Date(Date.now() - 5 * 60_000).toISOString();
    const replay = await account.as("POST", "/api/webhook-deliveries/replay", {
      body: { since, status: "FAILED", endpointId },
    });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body.queued).toBeGreaterThanOrEqual(1);
    expect(await only(account, "webhook_delivery.replayed")).toMatchObject({
      target: { type: "webhook_endpoint", id: endpointId },
      details: { status: "FAILED", since, queued: replay.body.queued, more: false },
    });
  });

  it("a member is named by user id and address at the time", async () => {
    const admin = await newMember(account, "admin");
    const res = await admin.as("PUT", "/api/account/limits", { body: { maxConcurrentCalls: 5 } });
    expect(res.status, res.text).toBe(200);
    const [latest] = await entries(account, `?actor=${admin.userId}`);
    expect(latest).toMatchObject({
      action: "account.limits_changed",
      actor: { type: "member", userId: admin.userId, email: admin.email, keyPrefix: null },
    });
    expect(latest!.ip).toMatch(/^198\.19\./);
  });
});

describe("atomicity: a change that fails leaves no entry", () => {
  it("a number already registered (the unique index refuses it inside the transaction)", async () => {
    const a = await newActiveAccount();
    const body = numberBody();
    expect((await a.as("POST", "/api/phone-numbers", { body })).status).toBe(201);
    const again = await a.as("POST", "/api/phone-numbers", { body });
    expect(again.status).toBe(409);
    expect(await entries(a, "?action=phone_number.created")).toHaveLength(1);
  });

  it("the eleventh endpoint (refused inside the transaction) and a refused update of another's key", async () => {
    const a = await newActiveAccount();
    for (let i = 0; i < 10; i++)
      expect(
        (
          await a.as("POST", "/api/webhook-endpoints", {
            body: { url: `https://hooks.example.com/${i}`, eventTypes: ["call.ended"] },
          })
        ).status,
      ).toBe(201);
    const eleventh = await a.as("POST", "/api/webhook-endpoints", {
      body: { url: "https://hooks.example.com/11", eventTypes: ["call.ended"] },
    });
    expect(eleventh.status).toBe(403);
    expect(await entries(a, "?action=webhook_endpoint.created&limit=100")).toHaveLength(10);
    expect((await a.as("DELETE", "/api/api-keys/cmnotakey0000000000000000")).status).toBe(404);
    expect(await entries(a, "?action=api_key.revoked")).toHaveLength(0);
  });

  it("a rolled-back transaction takes its entry with it", async () => {
    const a = await newActiveAccount();
    // A trigger that refuses the limits' row after the entry would be written: the whole change rolls back.
    const fn = `audit_refuse_${a.id.replace(/[^a-z0-9]/g, "")}`;
    await sql().query(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF NEW."accountId" = '${a.id}' THEN RAISE EXCEPTION 'refused by test'; END IF; RETURN NEW; END $$`,
    );
    await sql().query(
      `CREATE CONSTRAINT TRIGGER ${fn} AFTER INSERT ON "AuditLogEntry" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    );
    try {
      const res = await a.as("PUT", "/api/account/limits", { body: { monthlyBudget: 10 } });
      expect(res.status).toBe(500);
      const { rows } = await sql().query(`SELECT "monthlyBudget" FROM "AccountLimit" WHERE "accountId" = $1`, [a.id]);
      expect(rows).toEqual([]);
    } finally {
      await sql().query(`DROP TRIGGER ${fn} ON "AuditLogEntry"`);
      await sql().query(`DROP FUNCTION ${fn}()`);
    }
    expect(await entries(a)).toEqual([]);
  });
});

describe("reading the log", () => {
  let a: TestAccount;
  let b: TestAccount;
  const numbers: string[] = [];
  beforeAll(async () => {
    [a, b] = await Promise.all([newActiveAccount(), newActiveAccount()]);
    for (let i = 0; i < 5; i++) {
      const res = await a.as("POST", "/api/phone-numbers", { body: numberBody() });
      numbers.push(res.body.phoneNumber.id);
    }
    await a.as("PUT", "/api/account/limits", { body: { hardCap: true } });
    await b.as("PUT", "/api/account/limits", { body: { hardCap: true } });
  });

  it("pages newest first with a cursor, every entry once", async () => {
    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const res: ApiResponse = await a.as("GET", `/api/audit-log?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.entries.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.entries);
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen.map((e) => e.action)).toEqual(["account.limits_changed", ...numbers.map(() => "phone_number.created")]);
    expect(seen.slice(1).map((e) => e.target.id)).toEqual([...numbers].reverse());
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    expect((await a.as("GET", "/api/audit-log?cursor=not-a-cursor")).status).toBe(400);
  });

  it("filters by action, actor, target and time", async () => {
    expect(await entries(a, "?action=phone_number.created")).toHaveLength(5);
    expect(await entries(a, `?actor=${prefixOf(a.apiKey)}`)).toHaveLength(6);
    expect(await entries(a, `?actor=${prefixOf(b.apiKey)}`)).toHaveLength(0);
    expect(await entries(a, "?targetType=account")).toHaveLength(1);
    const [one] = await entries(a, `?targetType=phone_number&targetId=${numbers[2]}`);
    expect(one?.target.id).toBe(numbers[2]);
    const all = await entries(a);
    const middle = all[3]!.createdAt;
    const since = await entries(a, `?since=${encodeURIComponent(middle)}`);
    const until = await entries(a, `?until=${encodeURIComponent(middle)}`);
    expect(since.length + until.length).toBe(all.length);
    expect(since.every((e) => e.createdAt >= middle) && until.every((e) => e.createdAt < middle)).toBe(true);
    expect((await a.as("GET", "/api/audit-log?action=number.stolen")).status).toBe(400);
  });

  it("an account never sees another's entries, by any filter", async () => {
    const bs = await entries(b);
    expect(bs.map((e) => e.action)).toEqual(["account.limits_changed"]);
    expect(await entries(b, `?targetId=${numbers[0]}`)).toEqual([]);
    expect(await entries(b, `?actor=${prefixOf(a.apiKey)}`)).toEqual([]);
  });

  it("is for admins and owners: a developer or viewer is refused", async () => {
    const [admin, developer, viewer] = await Promise.all([
      newMember(a, "admin"),
      newMember(a, "developer"),
      newMember(a, "viewer"),
    ]);
    expect((await admin.as("GET", "/api/audit-log")).status).toBe(200);
    for (const m of [developer, viewer]) {
      const res = await m.as("GET", "/api/audit-log");
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    }
  });
});

describe("Twilio connection and call control (on a simulated Twilio)", () => {
  let setup: SimulatedTwilioServer;
  beforeAll(async () => {
    setup = await startSimulatedTwilioServer({ name: "it-audit", database: "audit", emailTag: "au" });
  });
  afterAll(() => setup?.close());

  const log = async (c: SimulatedCustomer, action: string) =>
    (await c.as("GET", `/api/audit-log?action=${action}`)).body.entries as Entry[];

  it("connecting and disconnecting Twilio, without the auth token", async () => {
    const c = await setup.customer();
    const tw = setup.twilio.addAccount({ friendlyName: "Acme Voice" });
    expect((await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken })).status).toBe(
      200,
    );
    const [set] = await log(c, "twilio_connection.set");
    expect(set).toMatchObject({
      target: { type: "twilio_connection", id: tw.sid },
      actor: { type: "api_key", keyPrefix: prefixOf(c.apiKey) },
      ip: c.ip,
    });
    expect((await c.as("DELETE", "/api/twilio-connection")).status).toBe(200);
    expect((await c.as("DELETE", "/api/twilio-connection")).status).toBe(200);
    expect(await log(c, "twilio_connection.removed")).toHaveLength(1);
    expect((await c.as("GET", "/api/audit-log")).text).not.toContain(tw.authToken);
  });

  it("a live call hung up; a refused command records nothing", async () => {
    const c = await setup.customer();
    const tw = setup.twilio.addAccount({ friendlyName: "Acme Voice" });
    const number = randomUsNumber();
    setup.twilio.addIncomingNumber(tw.sid, number);
    expect((await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken })).status).toBe(
      200,
    );
    expect((await c.as("POST", "/api/phone-numbers", setup.numberBody(number))).status).toBe(201);
    const callSid = newCallSid();
    setup.twilio.inboundCall({ to: number, from: randomUsNumber(), callSid, holdMs: 20_000 });
    await until(async () => {
      const r = await c.as("GET", `/api/calls/${callSid}`);
      return (
        r.status === 200 && r.body.call.answer !== null && setup.twilio.control.get(callSid)?.status === "in-progress"
      );
    }, `call ${callSid} answered`);
    const hungUp = await c.as("POST", `/api/calls/${callSid}/hangup`);
    expect(hungUp.status, hungUp.text).toBe(200);
    const [entry] = await log(c, "call.hung_up");
    expect(entry).toMatchObject({ target: { type: "call", id: callSid }, ip: c.ip });
    // The call is over: the second hang-up is refused and leaves no second entry.
    await until(async () => (await c.as("GET", `/api/calls/${callSid}`)).body.call.endedAt !== null, "call ended");
    expect((await c.as("POST", `/api/calls/${callSid}/hangup`)).status).toBe(409);
    expect(await log(c, "call.hung_up")).toHaveLength(1);
  });
});

describe("retention: 13 months", () => {
  let inProcess: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    inProcess = await startInProcess();
  });
  afterAll(() => inProcess?.stop());

  it("the daily job deletes entries older than 13 months, in batches, and keeps the rest", async () => {
    const a = await newAccount({ server: "permissive" });
    const db = sql("permissive");
    const insert = (interval: string, n: number) =>
      seed("permissive").run(
        build.insertInto("AuditLogEntry").values(
          Array.from({ length: n }, () => ({
            accountId: a.id,
            actorType: "system",
            action: "account.limits_changed",
            targetType: "account",
            createdAt: ago(interval),
          })),
        ),
      );
    await insert("13 months 1 day", 5);
    await insert("12 months 28 days", 2);
    await insert("1 day", 1);
    expect(await pruneAuditLog({ batch: 2 })).toBeGreaterThanOrEqual(5);
    const { rows } = await db.query(
      `SELECT count(*)::int AS n, min("createdAt") > now() - interval '13 months' AS kept
       FROM "AuditLogEntry" WHERE "accountId" = $1`,
      [a.id],
    );
    expect(rows[0]).toEqual({ n: 3, kept: true });
  });
});
