import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_CATALOGUE } from "../../src/shared/schemas/events";
import {
  newCallSid,
  postSigned,
  simulateInboundCall,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";
import { call, newActiveAccount, numberBody, randomUsNumber, sql, type TestAccount, seed } from "../support/api";
import { build } from "../support/seed";
import { startSharedTwilioSimulator } from "../support/shared-twilio-simulator";
import { startReceiver, type Received } from "../support/receiver";
import { until } from "../support/until";

// docs/decisions.md §15 end to end: the built server (permissive: local receivers), real PostgreSQL, the
// Twilio simulator playing Twilio's side, and real local receivers for the number's URLs and every endpoint.
const TWILIO_SID = `AC${"1".repeat(32)}`;
const TWILIO_TOKEN = "simulator-auth-token";
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hi</Say></Response>';

let twilio: TwilioSimulator;
let backend: Awaited<ReturnType<typeof startReceiver>>;
/** Paths whose requests are held open and never answered: a destination that hangs. */
const hanging = new Set<string>();
const held: ServerResponse[] = [];
/** Paths that answer 500 at once. */
const failing = new Set<string>();

beforeAll(async () => {
  twilio = await startSharedTwilioSimulator({ [TWILIO_SID]: TWILIO_TOKEN });
  backend = await startReceiver((r: Received, res) => {
    if (hanging.has(r.path)) return held.push(res);
    if (failing.has(r.path)) return res.writeHead(500).end("down");
    if (r.path.endsWith("/start")) return res.writeHead(200, { "content-type": "application/xml" }).end(XML);
    res.writeHead(200).end("ok");
  });
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await twilio.close();
  await backend.close();
});

const at = (path: string) => backend.received.filter((r) => r.path === path);
const eventsAt = (path: string) => at(path).map((r) => JSON.parse(r.body) as { id: string; type: string; data: any });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Setup = { account: TestAccount; tag: string; number: string; numberId: string; start: string; end: string };

async function setup(opts: { onError?: boolean } = {}): Promise<Setup> {
  const account = await newActiveAccount({ server: "permissive" });
  const tag = `/${account.id}`;
  const number = randomUsNumber();
  const res = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber: number,
      onCallStartUrl: backend.url(`${tag}/start`),
      onCallEndUrl: backend.url(`${tag}/end`),
      ...(opts.onError ? { onErrorUrl: backend.url(`${tag}/error`) } : {}),
    }),
  });
  expect(res.status).toBe(201);
  return { account, tag, number, numberId: res.body.phoneNumber.id, start: `${tag}/start`, end: `${tag}/end` };
}

async function addEndpoint(
  account: TestAccount,
  path: string,
  eventTypes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string; url: string }> {
  const res = await account.as("POST", "/api/webhook-endpoints", {
    body: { url: backend.url(path), eventTypes, ...extra },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.webhookEndpoint;
}

function inbound(s: Setup, outcome: "completed" | "failed" = "completed") {
  return simulateInboundCall({
    engineUrl: s.account.engineVoiceUrl,
    from: "+14155550100",
    to: s.number,
    durationSeconds: 61,
    authToken: TWILIO_TOKEN,
    outcome,
  });
}

function verify(secret: string, r: Received) {
  return new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { id: string; type: string };
}

describe("CRUD (docs/decisions.md §15, §22)", () => {
  it("creates with a whsec_ secret, lists without secrets, shows the secret on GET /{id}, updates and deletes", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const created = await account.as("POST", "/api/webhook-endpoints", {
      body: {
        url: backend.url("/crud"),
        eventTypes: ["call.ended", "call.ringing", "call.ended"],
        description: " Data pipeline ",
      },
    });
    expect(created.status).toBe(201);
    const endpoint = created.body.webhookEndpoint;
    expect(endpoint).toEqual({
      id: expect.any(String),
      url: backend.url("/crud"),
      // One order and no repeats.
      eventTypes: ["call.ended", "call.ringing"],
      description: "Data pipeline",
      enabled: true,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{40,}$/),
    });

    const list = await account.as("GET", "/api/webhook-endpoints");
    expect(list.status).toBe(200);
    const { secret, ...withoutSecret } = endpoint;
    expect(list.body).toEqual({ webhookEndpoints: [withoutSecret] });
    expect(list.text).not.toContain(secret);

    const one = await account.as("GET", `/api/webhook-endpoints/${endpoint.id}`);
    expect(one.body).toEqual({ webhookEndpoint: endpoint });

    // Stored sealed: the secret is nowhere in the row.
    const { rows } = await sql("permissive").query(`SELECT * FROM "WebhookEndpoint" WHERE id = $1`, [endpoint.id]);
    expect(JSON.stringify(rows[0])).not.toContain(secret.slice(6));

    const patched = await account.as("PATCH", `/api/webhook-endpoints/${endpoint.id}`, {
      body: { url: backend.url("/crud2"), eventTypes: ["*", "call.error"], description: "", enabled: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.webhookEndpoint).toEqual({
      ...withoutSecret,
      url: backend.url("/crud2"),
      eventTypes: ["*"],
      description: "",
      enabled: false,
    });
    const unchanged = await account.as("PATCH", `/api/webhook-endpoints/${endpoint.id}`, { body: { enabled: true } });
    expect(unchanged.body.webhookEndpoint).toMatchObject({
      url: backend.url("/crud2"),
      eventTypes: ["*"],
      enabled: true,
    });

    expect((await account.as("DELETE", `/api/webhook-endpoints/${endpoint.id}`)).body).toEqual({ deleted: true });
    const gone = await account.as("GET", `/api/webhook-endpoints/${endpoint.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("NOT_FOUND");
    expect((await account.as("DELETE", `/api/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await account.as("GET", "/api/webhook-endpoints")).body).toEqual({ webhookEndpoints: [] });
  });

  it("refuses a missing or empty eventTypes, an unknown type, call.started and a bad URL with 400 naming the field", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const url = backend.url("/v");
    const cases: [Record<string, unknown>, string][] = [
      [{ url }, "eventTypes"],
      [{ url, eventTypes: [] }, "eventTypes"],
      [{ url, eventTypes: ["call.nope"] }, "eventTypes.0"],
      [{ url, eventTypes: ["call.started"] }, "eventTypes.0"],
      [{ url: "not a url", eventTypes: ["*"] }, "url"],
      [{ url, eventTypes: ["*"], description: "x".repeat(201) }, "description"],
    ];
    for (const [body, path] of cases) {
      const res = await account.as("POST", "/api/webhook-endpoints", { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const created = await addEndpoint(account, "/v", ["*"]);
    const bad = await account.as("PATCH", `/api/webhook-endpoints/${created.id}`, { body: { eventTypes: [] } });
    expect(bad.status).toBe(400);
    expect((await account.as("GET", "/api/webhook-endpoints")).body.webhookEndpoints).toHaveLength(1);
  });

  it("applies the callback URL policy at registration: the production server refuses loopback and plain http", async () => {
    const account = await newActiveAccount();
    for (const url of [
      "http://127.0.0.1:9/hook",
      "https://localhost/hook",
      "https://10.0.0.1/hook",
      "http://example.com/x",
    ]) {
      const res = await account.as("POST", "/api/webhook-endpoints", { body: { url, eventTypes: ["*"] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details[0].path).toBe("url");
    }
    const ok = await account.as("POST", "/api/webhook-endpoints", {
      body: { url: "https://hooks.example.com/routekit", eventTypes: ["call.ended"] },
    });
    expect(ok.status).toBe(201);
    const patched = await account.as("PATCH", `/api/webhook-endpoints/${ok.body.webhookEndpoint.id}`, {
      body: { url: "https://192.168.1.2/x" },
    });
    expect(patched.status).toBe(400);
  });

  it("holds at most 10 per account, also when 14 are asked for at once: the rest are 403 ENDPOINT_LIMIT_REACHED", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        account.as("POST", "/api/webhook-endpoints", { body: { url: backend.url(`/limit/${i}`), eventTypes: ["*"] } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(4);
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("ENDPOINT_LIMIT_REACHED");
    }
    expect((await account.as("GET", "/api/webhook-endpoints")).body.webhookEndpoints).toHaveLength(10);
    // One deleted makes room for one.
    const first = results.find((r) => r.status === 201)!.body.webhookEndpoint.id;
    await account.as("DELETE", `/api/webhook-endpoints/${first}`);
    expect((await addEndpoint(account, "/limit/again", ["*"])).id).toBeTruthy();
  });

  it("keeps tenants apart: another account's endpoint is 404 and never listed", async () => {
    const [owner, other] = await Promise.all([
      newActiveAccount({ server: "permissive" }),
      newActiveAccount({ server: "permissive" }),
    ]);
    const endpoint = await addEndpoint(owner, "/tenant", ["*"]);
    expect((await other.as("GET", "/api/webhook-endpoints")).body).toEqual({ webhookEndpoints: [] });
    for (const [method, path] of [
      ["GET", `/api/webhook-endpoints/${endpoint.id}`],
      ["PATCH", `/api/webhook-endpoints/${endpoint.id}`],
      ["DELETE", `/api/webhook-endpoints/${endpoint.id}`],
      ["POST", `/api/webhook-endpoints/${endpoint.id}/secret`],
    ] as const) {
      const res = await other.as(method, path, { body: method === "PATCH" ? { enabled: false } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.text).not.toContain(endpoint.secret);
    }
    expect((await owner.as("GET", `/api/webhook-endpoints/${endpoint.id}`)).body.webhookEndpoint).toMatchObject({
      enabled: true,
      secret: endpoint.secret,
    });
  });

  it("takes an Idempotency-Key on create: a retry answers the same endpoint and creates nothing more", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const body = { url: backend.url("/idem"), eventTypes: ["call.ended"] };
    const headers = { "idempotency-key": `create-${account.id}` };
    const first = await account.as("POST", "/api/webhook-endpoints", { body, headers });
    const again = await account.as("POST", "/api/webhook-endpoints", { body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect((await account.as("GET", "/api/webhook-endpoints")).body.webhookEndpoints).toHaveLength(1);
  });
});

describe("GET /api/event-types", () => {
  it("lists the whole catalogue, call.ringing and call.answered included, each with a JSON Schema of its body", async () => {
    const account = await newActiveAccount();
    const res = await account.as("GET", "/api/event-types");
    expect(res.status).toBe(200);
    const types = res.body.eventTypes as { type: string; description: string; schema: any }[];
    expect(types.map((t) => t.type)).toEqual(EVENT_CATALOGUE.map((e) => e.type));
    expect(types.map((t) => t.type)).toEqual(expect.arrayContaining(["call.ringing", "call.answered", "call.ended"]));
    for (const t of types) {
      expect(t.description.length, t.type).toBeGreaterThan(10);
      expect(t.schema.type).toBe("object");
      expect(t.schema.properties.type.const, t.type).toBe(t.type);
      expect(t.schema.required).toEqual(expect.arrayContaining(["id", "type", "createdAt", "data"]));
    }
    expect((await call("GET", "/api/event-types")).status).toBe(401);
  });
});

describe("fan-out (docs/decisions.md §15)", () => {
  it("sends each event to the number's URL and to every enabled endpoint subscribed to its type or to *, with one event id", async () => {
    const s = await setup();
    const ended = await addEndpoint(s.account, `${s.tag}/ended`, ["call.ended"]);
    await addEndpoint(s.account, `${s.tag}/errors`, ["call.error"]);
    const all = await addEndpoint(s.account, `${s.tag}/all`, ["*"]);
    const disabled = await addEndpoint(s.account, `${s.tag}/disabled`, ["call.ended"]);
    expect(
      (await s.account.as("PATCH", `/api/webhook-endpoints/${disabled.id}`, { body: { enabled: false } })).status,
    ).toBe(200);

    const played = await inbound(s);
    const [numberEvent] = await until(() => eventsAt(s.end).length > 0 && eventsAt(s.end), "call.ended at the number");
    await until(() => at(`${s.tag}/ended`).length > 0 && at(`${s.tag}/all`).length > 0, "call.ended at endpoints");
    await sleep(500);

    expect(numberEvent).toMatchObject({ type: "call.ended", data: { callSid: played.callSid, status: "completed" } });
    // The same event, the same id, to each destination once.
    for (const path of [`${s.tag}/ended`, `${s.tag}/all`]) {
      expect(eventsAt(path), path).toEqual([numberEvent]);
      expect(at(path)[0]!.headers["webhook-id"]).toBe(numberEvent!.id);
    }
    // call.started is the number's only; unsubscribed and disabled endpoints get nothing.
    expect(at(`${s.tag}/errors`)).toHaveLength(0);
    expect(at(`${s.tag}/disabled`)).toHaveLength(0);
    expect(eventsAt(`${s.tag}/all`).map((e) => e.type)).toEqual(["call.ended"]);

    // One delivery per destination, each with its own log; the list filters by endpoint.
    const list = await s.account.as("GET", `/api/webhook-deliveries?callSid=${played.callSid}`);
    const byDestination = Object.fromEntries(
      list.body.deliveries
        .filter((d: any) => d.eventType === "call.ended")
        .map((d: any) => [d.endpointId ?? "number", d]),
    );
    expect(Object.keys(byDestination).sort()).toEqual([all.id, ended.id, "number"].sort());
    expect(byDestination.number.url).toBe(backend.url(s.end));
    expect(byDestination[ended.id]).toMatchObject({ url: ended.url, status: "DELIVERED", attemptCount: 1 });
    const onlyEnded = await s.account.as("GET", `/api/webhook-deliveries?endpointId=${ended.id}`);
    expect(onlyEnded.body.deliveries.map((d: any) => d.id)).toEqual([byDestination[ended.id].id]);
  });

  it("sends call.error to subscribed endpoints even when the number has no onErrorUrl", async () => {
    const s = await setup({ onError: false });
    await addEndpoint(s.account, `${s.tag}/errors`, ["call.error"]);
    const played = await inbound(s, "failed");
    const [error] = await until(
      () => eventsAt(`${s.tag}/errors`).length > 0 && eventsAt(`${s.tag}/errors`),
      "call.error at the endpoint",
    );
    expect(error).toMatchObject({
      type: "call.error",
      data: { callSid: played.callSid, error: { code: "CALL_FAILED" } },
    });
  });

  it("signs each endpoint's deliveries with that endpoint's own secret, and with both secrets during a rotation's overlap", async () => {
    const s = await setup();
    const a = await addEndpoint(s.account, `${s.tag}/a`, ["call.ended"]);
    const b = await addEndpoint(s.account, `${s.tag}/b`, ["call.ended"]);
    const accountSecret = (await s.account.as("GET", "/api/account")).body.account.webhookSecret;

    await inbound(s);
    await until(() => at(`${s.tag}/a`).length > 0 && at(`${s.tag}/b`).length > 0 && at(s.end).length > 0, "deliveries");
    const [toA] = at(`${s.tag}/a`);
    const [toB] = at(`${s.tag}/b`);
    expect(verify(a.secret, toA!).type).toBe("call.ended");
    expect(verify(b.secret, toB!).type).toBe("call.ended");
    expect(() => verify(b.secret, toA!)).toThrow();
    expect(() => verify(accountSecret, toA!)).toThrow();
    // The number's URL keeps the account's secret.
    expect(verify(accountSecret, at(s.end)[0]!).type).toBe("call.ended");
    expect(() => verify(a.secret, at(s.end)[0]!)).toThrow();

    const rotated = await s.account.as("POST", `/api/webhook-endpoints/${a.id}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(a.secret);
    const expires = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
    expect(expires).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(expires).toBeLessThanOrEqual(24 * 3600_000);
    expect((await s.account.as("GET", `/api/webhook-endpoints/${a.id}`)).body.webhookEndpoint.secret).toBe(
      rotated.body.secret,
    );

    await inbound(s);
    await until(() => at(`${s.tag}/a`).length > 1, "the second call.ended at a");
    const second = at(`${s.tag}/a`)[1]!;
    expect(String(second.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    // A receiver with either secret verifies it: nothing breaks while the new one is rolled out.
    expect(verify(rotated.body.secret, second).type).toBe("call.ended");
    expect(verify(a.secret, second).type).toBe("call.ended");

    // Retiring the previous secret: only the new one signs from then on.
    const retired = await s.account.as("POST", `/api/webhook-endpoints/${a.id}/secret`, {
      body: { expirePrevious: true },
    });
    expect(retired.body).toEqual({ secret: rotated.body.secret, previousSecretExpiresAt: null });
    await inbound(s);
    // Both endpoints' third deliveries: a's and b's attempts run independently, in either order.
    await until(() => at(`${s.tag}/a`).length > 2 && at(`${s.tag}/b`).length > 2, "the third call.ended at a and b");
    const third = at(`${s.tag}/a`)[2]!;
    expect(verify(rotated.body.secret, third).type).toBe("call.ended");
    expect(() => verify(a.secret, third)).toThrow();
    // b was never rotated.
    expect(verify(b.secret, at(`${s.tag}/b`)[2]!).type).toBe("call.ended");
  });

  it("delivers to healthy destinations on time while another destination hangs", async () => {
    const s = await setup();
    hanging.add(`${s.tag}/hang`);
    const hang = await addEndpoint(s.account, `${s.tag}/hang`, ["*"]);
    await addEndpoint(s.account, `${s.tag}/fast1`, ["call.ended"]);
    await addEndpoint(s.account, `${s.tag}/fast2`, ["*"]);

    const before = Date.now();
    const played = await inbound(s);
    const endedAt = Date.now();
    await until(
      () => at(`${s.tag}/fast1`).length > 0 && at(`${s.tag}/fast2`).length > 0 && at(s.end).length > 0,
      "the healthy destinations",
      5_000,
    );
    const latest = Math.max(...[`${s.tag}/fast1`, `${s.tag}/fast2`, s.end].map((p) => at(p)[0]!.at));
    // The hanging one was tried (it holds the request) but held up nobody: all arrived within 2 s of the call's end.
    expect(at(`${s.tag}/hang`).length).toBeGreaterThan(0);
    expect(latest - endedAt).toBeLessThan(2_000);
    expect(latest).toBeGreaterThan(before);

    const list = await s.account.as("GET", `/api/webhook-deliveries?endpointId=${hang.id}`);
    expect(list.body.deliveries).toHaveLength(1);
    expect(list.body.deliveries[0]).toMatchObject({ callSid: played.callSid, status: "PENDING", endpointId: hang.id });
  });
});

describe("call.ringing and call.answered (docs/decisions.md §15)", () => {
  it("reach only the endpoints subscribed to them, once each, never the number's URLs", async () => {
    const s = await setup({ onError: true });
    const progress = await addEndpoint(s.account, `${s.tag}/progress`, ["call.ringing", "call.answered"]);
    await addEndpoint(s.account, `${s.tag}/ended-only`, ["call.ended"]);
    const all = await addEndpoint(s.account, `${s.tag}/all`, ["*"]);

    twilio.planNextCall({ durationSeconds: 30 });
    const res = await s.account.as("POST", "/api/outbound", {
      body: {
        to: "+14155550177",
        from: s.number,
        onCallStartUrl: backend.url(s.start),
        onCallEndUrl: backend.url(s.end),
        onErrorUrl: backend.url(`${s.tag}/error`),
        providerAccountSid: TWILIO_SID,
        providerAuthToken: TWILIO_TOKEN,
      },
    });
    expect(res.status, res.text).toBe(201);
    const created = twilio.calls.find((c) => c.callSid === res.body.callSid)!;
    await created.played;
    await until(() => eventsAt(`${s.tag}/all`).some((e) => e.type === "call.ended"), "call.ended at *");
    await sleep(500);

    const types = (path: string) => eventsAt(path).map((e) => e.type);
    expect(types(`${s.tag}/progress`)).toEqual(["call.ringing", "call.answered"]);
    expect(types(`${s.tag}/all`)).toEqual(["call.ringing", "call.answered", "call.ended"]);
    expect(types(`${s.tag}/ended-only`)).toEqual(["call.ended"]);
    for (const path of [s.start, s.end, `${s.tag}/error`])
      expect(
        types(path).filter((t) => t === "call.ringing" || t === "call.answered"),
        path,
      ).toEqual([]);

    const [ringing, answered] = eventsAt(`${s.tag}/progress`);
    expect(ringing).toMatchObject({
      type: "call.ringing",
      data: { callSid: res.body.callSid, direction: "outbound", from: s.number, to: "+14155550177", status: "ringing" },
    });
    expect(answered).toMatchObject({ type: "call.answered", data: { callSid: res.body.callSid } });
    expect(verify(progress.secret, at(`${s.tag}/progress`)[0]!).type).toBe("call.ringing");
    expect(verify(all.secret, at(`${s.tag}/all`)[1]!).type).toBe("call.answered");
  });

  it("write nothing for an account without a subscribed endpoint", async () => {
    const s = await setup();
    await addEndpoint(s.account, `${s.tag}/ended-only`, ["call.ended"]);
    twilio.planNextCall({ durationSeconds: 5 });
    const res = await s.account.as("POST", "/api/outbound", {
      body: {
        to: "+14155550177",
        from: s.number,
        onCallStartUrl: backend.url(s.start),
        onCallEndUrl: backend.url(s.end),
        providerAccountSid: TWILIO_SID,
        providerAuthToken: TWILIO_TOKEN,
      },
    });
    expect(res.status).toBe(201);
    await twilio.calls.find((c) => c.callSid === res.body.callSid)!.played;
    await until(() => at(`${s.tag}/ended-only`).length > 0, "call.ended");
    const { rows } = await sql("permissive").query(
      `SELECT "eventType" FROM "WebhookDelivery" WHERE "accountId" = $1 AND "eventType" IN ('call.ringing', 'call.answered')`,
      [s.account.id],
    );
    expect(rows).toEqual([]);
  });

  it("commit with the call's progress, queued as they are written: when they cannot be written, the progress is not recorded either, and Twilio's retry sends them", async () => {
    const s = await setup();
    const progress = await addEndpoint(s.account, `${s.tag}/progress`, ["call.answered"]);
    const CallSid = newCallSid();
    const form = { CallSid, AccountSid: TWILIO_SID, From: "+14155550100", To: s.number, Direction: "inbound" };
    expect((await postSigned(s.account.engineVoiceUrl, { ...form, CallStatus: "ringing" }, TWILIO_TOKEN)).status).toBe(
      200,
    );
    const answered = { ...form, CallStatus: "in-progress", CallbackSource: "call-progress-events" };
    // This account's deliveries cannot be written for a moment.
    const trigger = `refuse_deliveries_${progress.id.replace(/\W/g, "")}`;
    await sql("permissive").query(
      `CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF NEW."accountId" = '${s.account.id}' AND NEW."eventType" = 'call.answered' THEN RAISE EXCEPTION 'no deliveries now'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER ${trigger} BEFORE INSERT ON "WebhookDelivery" FOR EACH ROW EXECUTE FUNCTION ${trigger}()`,
    );
    try {
      const refused = await postSigned(s.account.engineVoiceUrl, answered, TWILIO_TOKEN);
      expect(refused.status).toBeGreaterThanOrEqual(500);
      const { rows } = await sql("permissive").query(
        `SELECT id FROM "WebhookDelivery" WHERE "accountId" = $1 AND "eventType" = 'call.answered'`,
        [s.account.id],
      );
      expect(rows, "no delivery written").toEqual([]);
      const call = await sql("permissive").query(`SELECT status FROM "Call" WHERE "callSid" = $1`, [CallSid]);
      expect(call.rows[0]?.status, "the progress waits for Twilio's retry").not.toBe("in-progress");
    } finally {
      await sql("permissive").query(`DROP TRIGGER ${trigger} ON "WebhookDelivery"; DROP FUNCTION ${trigger}()`);
    }
    expect((await postSigned(s.account.engineVoiceUrl, answered, TWILIO_TOKEN)).status).toBe(200);
    const [event] = await until(
      () => eventsAt(`${s.tag}/progress`).length > 0 && eventsAt(`${s.tag}/progress`),
      "call.answered",
    );
    expect(event).toMatchObject({ type: "call.answered", data: { callSid: CallSid } });
  });
});

describe("test events and replay take an endpoint (docs/decisions.md §15, §20)", () => {
  it("sends a signed sample of any subscribable type to the endpoint, and the delivery names it", async () => {
    const s = await setup();
    const endpoint = await addEndpoint(s.account, `${s.tag}/test`, ["call.ended"]);
    for (const type of ["call.ringing", "recording.completed", "call.transfer_failed", "usage.threshold_reached"]) {
      const res = await s.account.as("POST", "/api/webhook-deliveries/test", {
        body: { endpointId: endpoint.id, type },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body.delivery).toMatchObject({
        eventType: type,
        url: endpoint.url,
        endpointId: endpoint.id,
        status: "DELIVERED",
        payload: { type, data: { test: true } },
      });
    }
    const got = at(`${s.tag}/test`);
    expect(got.map((r) => verify(endpoint.secret, r).type)).toEqual([
      "call.ringing",
      "recording.completed",
      "call.transfer_failed",
      "usage.threshold_reached",
    ]);

    const refused = [
      [{ endpointId: endpoint.id, type: "call.started" }, 400],
      [{ endpointId: endpoint.id, phoneNumberId: s.numberId, type: "call.ended" }, 400],
      [{ type: "call.ended" }, 400],
      [{ phoneNumberId: s.numberId, type: "call.ringing" }, 400],
      [{ endpointId: "cmdoesnotexist000000000000", type: "call.ended" }, 404],
    ] as const;
    for (const [body, status] of refused) {
      const res = await s.account.as("POST", "/api/webhook-deliveries/test", { body });
      expect(res.status, JSON.stringify(body)).toBe(status);
    }
  });

  it("replays only the failed deliveries of the endpoint asked for", async () => {
    const s = await setup();
    const flaky = await addEndpoint(s.account, `${s.tag}/flaky`, ["call.ended"]);
    const other = await addEndpoint(s.account, `${s.tag}/other`, ["call.ended"]);
    const played = await inbound(s);
    await until(() => at(`${s.tag}/flaky`).length > 0 && at(`${s.tag}/other`).length > 0, "first deliveries");
    // The worker records DELIVERED after the receiver has answered: wait for it, or it would overwrite the FAILED below.
    await until(
      async () =>
        (
          await sql("permissive").query(
            `SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "callSid" = $1 AND "endpointId" IS NOT NULL AND status = 'DELIVERED'`,
            [played.callSid],
          )
        ).rows[0].n === 2,
      "both first deliveries recorded as delivered",
    );
    // As if both had given up.
    await seed("permissive").run(
      build
        .updateTable("WebhookDelivery")
        .set({ status: "FAILED", nextAttemptAt: null })
        .where("callSid", "=", played.callSid)
        .where("endpointId", "is not", null),
    );
    const replay = await s.account.as("POST", "/api/webhook-deliveries/replay", {
      body: { since: new Date(Date.now() - 3600_000).toISOString(), endpointId: flaky.id },
    });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body).toEqual({ queued: 1, more: false });
    await until(() => at(`${s.tag}/flaky`).length > 1, "the replayed delivery");
    await sleep(300);
    expect(at(`${s.tag}/other`)).toHaveLength(1);
    const list = await s.account.as("GET", `/api/webhook-deliveries?endpointId=${other.id}`);
    expect(list.body.deliveries[0].status).toBe("FAILED");
  });

  it("gives up a queued delivery whose endpoint was deleted, without a request", async () => {
    const s = await setup();
    failing.add(`${s.tag}/doomed`);
    const doomed = await addEndpoint(s.account, `${s.tag}/doomed`, ["call.ended"]);
    await inbound(s);
    await until(() => at(`${s.tag}/doomed`).length > 0, "the first attempt");
    const [delivery] = (await s.account.as("GET", `/api/webhook-deliveries?endpointId=${doomed.id}`)).body.deliveries;
    expect((await s.account.as("DELETE", `/api/webhook-endpoints/${doomed.id}`)).status).toBe(200);
    // Its next attempt, due at once (a redeliver), finds no endpoint to sign with.
    expect((await s.account.as("POST", `/api/webhook-deliveries/${delivery.id}/retry`)).status).toBe(200);
    const done = await until(async () => {
      const d = (await s.account.as("GET", `/api/webhook-deliveries/${delivery.id}`)).body.delivery;
      return d.status === "FAILED" && d.attempts.length > 1 && d;
    }, "the delivery given up");
    expect(done.attempts[0].error).toMatch(/^endpoint_deleted/);
    expect(at(`${s.tag}/doomed`)).toHaveLength(1);
  });
});
