import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transactionWithEvents } from "../../src/server/events/enqueue-event";
import { buildEvent } from "../../src/server/events/event-envelope";
import { postCallStarted } from "../../src/server/events/post-call-started";
import { Webhook } from "standardwebhooks";
import { call, newActiveAccount, type TestAccount } from "./support/api";
import { startInProcess } from "./support/in-process";
import { startReceiver } from "./support/receiver";

let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  inProcess = await startInProcess();
  receiver = await startReceiver((_r, res) => res.end("thanks"));
});
afterAll(async () => {
  await receiver.close();
  await inProcess.stop();
});

/** Deliveries recorded in-process (their first attempt is ours to run, so none has run yet). */
async function seed(account: TestAccount, specs: { callSid: string; type?: "call.ended" | "call.error" }[]) {
  const ids: string[] = [];
  for (const spec of specs) {
    const event = buildEvent(spec.type ?? "call.ended", { callSid: spec.callSid, direction: "inbound", from: "+14155550100", to: "+14155550123", phoneNumberId: null });
    ids.push(await transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url: receiver.url(`/${account.id}`), event })));
  }
  return ids;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("GET /api/webhook-deliveries", () => {
  it("happy: newest first, paginated with total, filterable by status and callSid", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const ids = await seed(acct, [{ callSid: "CA1" }, { callSid: "CA2" }, { callSid: "CA2", type: "call.error" }]);
    const all = await acct.as("GET", "/api/webhook-deliveries");
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.body.deliveries.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
    expect(all.body.deliveries[0]).toMatchObject({ eventType: "call.error", callSid: "CA2", status: "PENDING", attemptCount: 0, lastAttempt: null });

    const page = await acct.as("GET", "/api/webhook-deliveries?limit=1&offset=1");
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
    expect((await acct.as("GET", "/api/webhook-deliveries?callSid=CA2")).body.total).toBe(2);
    expect((await acct.as("GET", "/api/webhook-deliveries?status=DELIVERED")).body.total).toBe(0);
    expect((await acct.as("GET", "/api/webhook-deliveries?limit=500")).body.limit).toBe(100);
  });

  it("error: 400 for a bad limit, offset or status", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    for (const q of ["limit=0", "limit=abc", "limit=1.5", "offset=-1", "status=LOST"]) {
      const res = await acct.as("GET", `/api/webhook-deliveries?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
  });

  it("security: 401 without a key; another account's deliveries are invisible and untouchable", async () => {
    expect((await call("GET", "/api/webhook-deliveries", { server: "permissive" })).status).toBe(401);
    const a = await newActiveAccount({ server: "permissive" });
    const b = await newActiveAccount({ server: "permissive" });
    const [id] = await seed(a, [{ callSid: "CA-secret" }]);
    expect((await b.as("GET", "/api/webhook-deliveries")).body.total).toBe(0);
    expect((await b.as("GET", "/api/webhook-deliveries?callSid=CA-secret")).body.total).toBe(0);
    expect((await b.as("GET", `/api/webhook-deliveries/${id}`)).status).toBe(404);
    expect((await b.as("POST", `/api/webhook-deliveries/${id}/retry`)).status).toBe(404);
    expect(receiver.received.filter((r) => r.path === `/${a.id}`)).toHaveLength(0);
  });
});

describe("GET /api/webhook-deliveries/:id and POST …/retry", () => {
  it("redelivers now through the server's worker; the attempt shows in the log", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const [id] = await seed(acct, [{ callSid: "CA-retry" }]);
    const res = await acct.as("POST", `/api/webhook-deliveries/${id}/retry`);
    expect(res.status).toBe(200);
    expect(res.body.delivery).toMatchObject({ id, status: "PENDING" });
    const delivered = await waitFor(async () => {
      const d = (await acct.as("GET", `/api/webhook-deliveries/${id}`)).body.delivery;
      return d.status === "DELIVERED" ? d : undefined;
    });
    expect(delivered.attempts).toHaveLength(1);
    expect(delivered.attempts[0]).toMatchObject({ statusCode: 200, responseExcerpt: "thanks", error: null, url: receiver.url(`/${acct.id}`) });
    expect(delivered.payload).toMatchObject({ id: delivered.eventId, type: "call.ended", data: { callSid: "CA-retry" } });
    const got = receiver.received.filter((r) => r.path === `/${acct.id}`);
    expect(got).toHaveLength(1);
    expect(got[0]!.headers["webhook-id"]).toBe(delivered.eventId);

    // Redelivering a delivered event sends it again, same id, freshly signed.
    await acct.as("POST", `/api/webhook-deliveries/${id}/retry`);
    await waitFor(async () => (receiver.received.filter((r) => r.path === `/${acct.id}`).length === 2 ? true : undefined));
    const again = receiver.received.filter((r) => r.path === `/${acct.id}`);
    expect(again[1]!.headers["webhook-id"]).toBe(delivered.eventId);
  });

  it("404 for an unknown id", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    expect((await acct.as("GET", "/api/webhook-deliveries/nope")).status).toBe(404);
    expect((await acct.as("POST", "/api/webhook-deliveries/nope/retry")).body.error.code).toBe("NOT_FOUND");
  });
});

describe("call.started, sent synchronously", () => {
  it("is signed like every event and returns the customer's answer", async () => {
    const secret = "whsec_" + Buffer.from("0123456789abcdef0123456789abcdef").toString("base64");
    const event = buildEvent("call.started", { callSid: "CA-sync", direction: "inbound", from: "+14155550100", to: "+14155550123", phoneNumberId: "pn" });
    receiver.answer((_r, res) => res.writeHead(200, { "content-type": "application/xml" }).end("<Response><Say>Hi</Say></Response>"));
    const res = await postCallStarted({ url: receiver.url("/start"), event, secrets: [secret] });
    expect(res.status).toBe(200);
    expect(res.body).toBe("<Response><Say>Hi</Say></Response>");
    const got = receiver.received.find((r) => r.path === "/start")!;
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(event);
  });

  it("gives up after CALLBACK_START_TIMEOUT_MS", async () => {
    receiver.answer(() => undefined);
    const event = buildEvent("call.started", { callSid: "CA-slow", direction: "inbound", from: "+14155550100", to: "+14155550123", phoneNumberId: null });
    const started = Date.now();
    const { env } = await import("../../src/server/env");
    await expect(postCallStarted({ url: receiver.url("/slow-start"), event, secrets: ["whsec_AAAA"] })).rejects.toMatchObject({ kind: "timeout" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(env().callbackStartTimeoutMs - 50);
    expect(Date.now() - started).toBeLessThan(env().callbackStartTimeoutMs + 1000);
  });
});
