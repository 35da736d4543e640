import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transactionWithEvents } from "../../src/server/webhooks/enqueue-event";
import { buildEvent } from "../../src/server/webhooks/event-envelope";
import { postCallStarted } from "../../src/server/webhooks/post-call-started";
import { Webhook } from "standardwebhooks";
import { call, newActiveAccount, numberBody, sql, type TestAccount, seed } from "../support/api";
import { checkEventContract } from "../support/contract";
import { sqlTransaction } from "../../src/server/db/sql-transaction";
import { replayMatching } from "../../src/server/services/deliveries/webhook-deliveries";
import { startInProcess } from "../support/in-process";
import { startReceiver } from "../support/receiver";
import { until } from "../support/until";
import { ago, fromNow } from "../support/seed";

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
async function recordDeliveries(
  account: TestAccount,
  specs: { callSid: string; type?: "call.ended" | "call.error" }[],
) {
  const ids: string[] = [];
  for (const spec of specs) {
    const event = buildEvent(spec.type ?? "call.ended", {
      callSid: spec.callSid,
      direction: "inbound",
      from: "+14155550100",
      to: "+14155550123",
      phoneNumberId: null,
    });
    ids.push(
      await transactionWithEvents((_tx, emit) =>
        emit({ accountId: account.id, url: receiver.url(`/${account.id}`), event }),
      ),
    );
  }
  return ids;
}

/** A delivery that gave up (its seeded first attempt never runs: the job is in this process's queue). */
async function markFailed(ids: string[]) {
  await seed("permissive").update(
    "WebhookDelivery",
    { id: ids },
    { status: "FAILED", cycleAttempts: 8, nextAttemptAt: null },
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** As if the redeliver that restarted the delivery was a minute ago: past the window in which another is a no-op. */
async function pastRedeliverWindow(id: string) {
  await seed("permissive").update("WebhookDelivery", { id }, { redeliveredAt: ago("1 minute") });
}

const receivedAt = (path: string) => receiver.received.filter((r) => r.path === path);

describe("GET /api/webhook-deliveries", () => {
  describe("happy", () => {
    it("newest first, paginated with total, filterable by status and callSid", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      const ids = await recordDeliveries(acct, [
        { callSid: "CA1" },
        { callSid: "CA2" },
        { callSid: "CA2", type: "call.error" },
      ]);
      const all = await acct.as("GET", "/api/webhook-deliveries");
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
      expect(all.body.deliveries.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
      expect(all.body.deliveries[0]).toMatchObject({
        eventType: "call.error",
        callSid: "CA2",
        status: "PENDING",
        attemptCount: 0,
        lastAttempt: null,
      });

      const page = await acct.as("GET", "/api/webhook-deliveries?limit=1&offset=1");
      expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
      expect(page.body.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
      expect((await acct.as("GET", "/api/webhook-deliveries?callSid=CA2")).body.total).toBe(2);
      expect((await acct.as("GET", "/api/webhook-deliveries?status=DELIVERED")).body.total).toBe(0);
      expect((await acct.as("GET", "/api/webhook-deliveries?limit=500")).body.limit).toBe(100);
    });

    it("filterable by event type, number, destination and date, combined with the rest", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      const number = (await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber as {
        id: string;
      };
      // Two calls to the number (the log knows a delivery's number through its call), one to nowhere known.
      await seed("permissive").calls(
        ["CA-num-1", "CA-num-2"].map((callSid) => ({ callSid, accountId: acct.id, phoneNumberId: number.id })),
      );
      const [ended1, error1, ended2, other] = await recordDeliveries(acct, [
        { callSid: "CA-num-1" },
        { callSid: "CA-num-1", type: "call.error" },
        { callSid: "CA-num-2" },
        { callSid: "CA-elsewhere" },
      ]);
      // One of them went to a webhook endpoint; the others to the number's URL. One is from two days ago.
      await seed("permissive").update("WebhookDelivery", { id: ended2 }, { endpointId: "ep_filter" });
      await seed("permissive").update("WebhookDelivery", { id: other }, { createdAt: ago("2 days") });
      const ids = async (q: string) => {
        const res = await acct.as("GET", `/api/webhook-deliveries?${q}`);
        expect(res.status, q).toBe(200);
        expect(res.body.total, q).toBe(res.body.deliveries.length);
        return (res.body.deliveries as { id: string }[]).map((d) => d.id).sort();
      };
      const sorted = (...xs: (string | undefined)[]) => (xs as string[]).sort();
      expect(await ids("eventType=call.error")).toEqual([error1]);
      expect(await ids(`phoneNumberId=${number.id}`)).toEqual(sorted(ended1, error1, ended2));
      expect(await ids(`phoneNumberId=${number.id}&eventType=call.ended`)).toEqual(sorted(ended1, ended2));
      expect(await ids("destination=endpoint")).toEqual([ended2]);
      expect(await ids("destination=number-url")).toEqual(sorted(ended1, error1, other));
      expect(await ids(`destination=number-url&phoneNumberId=${number.id}`)).toEqual(sorted(ended1, error1));
      const yesterday = new Date(Date.now() - 86_400_000).toISOString();
      expect(await ids(`since=${encodeURIComponent(yesterday)}`)).toEqual(sorted(ended1, error1, ended2));
      expect(await ids(`until=${encodeURIComponent(yesterday)}`)).toEqual([other]);
      expect(await ids(`since=${encodeURIComponent(yesterday)}&status=PENDING&eventType=call.ended`)).toEqual(
        sorted(ended1, ended2),
      );
      // Another account's number matches none of this account's deliveries, and its own filter sees none of them.
      const stranger = await newActiveAccount({ server: "permissive" });
      expect((await stranger.as("GET", `/api/webhook-deliveries?phoneNumberId=${number.id}`)).body.total).toBe(0);
    });
  });

  describe("error", () => {
    it("400 for a bad limit, offset, status, event type, destination or time", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      for (const q of [
        "limit=0",
        "limit=abc",
        "limit=1.5",
        "offset=-1",
        "status=LOST",
        "eventType=call.lost",
        "destination=elsewhere",
        "since=yesterday",
        "until=2026-13-01",
      ]) {
        const res = await acct.as("GET", `/api/webhook-deliveries?${q}`);
        expect(res.status, q).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_FAILED");
      }
    });
  });

  describe("security", () => {
    it("401 without a key; another account's deliveries are invisible and untouchable", async () => {
      expect((await call("GET", "/api/webhook-deliveries", { server: "permissive" })).status).toBe(401);
      const a = await newActiveAccount({ server: "permissive" });
      const b = await newActiveAccount({ server: "permissive" });
      const [id] = await recordDeliveries(a, [{ callSid: "CA-secret" }]);
      expect((await b.as("GET", "/api/webhook-deliveries")).body.total).toBe(0);
      expect((await b.as("GET", "/api/webhook-deliveries?callSid=CA-secret")).body.total).toBe(0);
      expect((await b.as("GET", `/api/webhook-deliveries/${id}`)).status).toBe(404);
      expect((await b.as("POST", `/api/webhook-deliveries/${id}/retry`)).status).toBe(404);
      expect(receiver.received.filter((r) => r.path === `/${a.id}`)).toHaveLength(0);
    });
  });
});

describe("GET /api/webhook-deliveries/:id and POST …/retry", () => {
  it("redelivers now through the server's worker; the attempt shows in the log", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const [id] = await recordDeliveries(acct, [{ callSid: "CA-retry" }]);
    receiver.answer((_r, res) => res.end("thanks"));
    await markFailed([id!]);
    const res = await acct.as("POST", `/api/webhook-deliveries/${id}/retry`);
    expect(res.status).toBe(200);
    expect(res.body.delivery).toMatchObject({ id, status: "PENDING" });
    const delivered = await until(
      async () => {
        const d = (await acct.as("GET", `/api/webhook-deliveries/${id}`)).body.delivery;
        return d.status === "DELIVERED" ? d : undefined;
      },
      "the delivery to be DELIVERED",
      15_000,
      100,
    );
    expect(delivered.attempts).toHaveLength(1);
    expect(delivered.attempts[0]).toMatchObject({
      statusCode: 200,
      responseExcerpt: "thanks",
      error: null,
      url: receiver.url(`/${acct.id}`),
    });
    expect(delivered.payload).toMatchObject({
      id: delivered.eventId,
      type: "call.ended",
      data: { callSid: "CA-retry" },
    });
    const got = receiver.received.filter((r) => r.path === `/${acct.id}`);
    expect(got).toHaveLength(1);
    expect(got[0]!.headers["webhook-id"]).toBe(delivered.eventId);

    // Redelivering a delivered event (once the redeliver window has passed) sends it again, same id, freshly signed.
    await pastRedeliverWindow(id!);
    await acct.as("POST", `/api/webhook-deliveries/${id}/retry`);
    await until(
      () => receiver.received.filter((r) => r.path === `/${acct.id}`).length === 2,
      "the second delivery",
      15_000,
      100,
    );
    const again = receiver.received.filter((r) => r.path === `/${acct.id}`);
    expect(again[1]!.headers["webhook-id"]).toBe(delivered.eventId);
  });

  it("404 for an unknown id", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    expect((await acct.as("GET", "/api/webhook-deliveries/nope")).status).toBe(404);
    expect((await acct.as("POST", "/api/webhook-deliveries/nope/retry")).body.error.code).toBe("NOT_FOUND");
  });
});

describe("redeliver is idempotent", () => {
  it("five concurrent clicks on one delivery send it once; all answer 200 with the delivery", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    // The receiver holds its answer until every click has been answered, so
    // all five land while the one attempt is still in flight: a fast worker
    // must not turn a later click into "after the attempt" (which rightly
    // sends again, as the end of this test shows).
    let release!: () => void;
    const clicksAnswered = new Promise<void>((resolve) => (release = resolve));
    receiver.answer((_r, res) => void clicksAnswered.then(() => res.end("thanks")));
    const [id] = await recordDeliveries(acct, [{ callSid: "CA-clicks" }]);
    await markFailed([id!]);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => acct.as("POST", `/api/webhook-deliveries/${id}/retry`)),
    );
    release();
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.delivery.id).toBe(id);
    }
    await until(
      async () => {
        const d = (await acct.as("GET", `/api/webhook-deliveries/${id}`)).body.delivery;
        return d.status === "DELIVERED" ? d : undefined;
      },
      "the delivery to be DELIVERED",
      15_000,
      100,
    );
    // Time for any second send a duplicate job would make.
    await sleep(1500);
    expect(receiver.received.filter((r) => r.path === `/${acct.id}`)).toHaveLength(1);
    const d = (await acct.as("GET", `/api/webhook-deliveries/${id}`)).body.delivery;
    expect(d.attempts).toHaveLength(1);

    // Once that attempt is made and the redeliver window has passed, a new click sends again.
    await pastRedeliverWindow(id!);
    await acct.as("POST", `/api/webhook-deliveries/${id}/retry`);
    await until(
      () => receiver.received.filter((r) => r.path === `/${acct.id}`).length === 2,
      "the second delivery",
      15_000,
      100,
    );
  });

  // Issue #22 finding 12: with a fast receiver the first click's attempt is over before the later clicks arrive.
  it("twenty simultaneous clicks send once, even when the attempt finishes while they arrive", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    receiver.answer((_r, res) => res.end("thanks"));
    const [id] = await recordDeliveries(acct, [{ callSid: "CA-twenty" }]);
    await markFailed([id!]);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => acct.as("POST", `/api/webhook-deliveries/${id}/retry`)),
    );
    for (const a of answers) expect(a.status).toBe(200);
    await until(
      async () => (await acct.as("GET", `/api/webhook-deliveries/${id}`)).body.delivery.status === "DELIVERED",
      "DELIVERED",
      15_000,
      100,
    );
    await sleep(1500);
    expect(receivedAt(`/${acct.id}`)).toHaveLength(1);
    expect((await acct.as("GET", `/api/webhook-deliveries/${id}`)).body.delivery.attempts).toHaveLength(1);
  });

  it.each([30, 100, 250])("two clicks %i ms apart send once", async (gapMs) => {
    const acct = await newActiveAccount({ server: "permissive" });
    receiver.answer((_r, res) => res.end("thanks"));
    const [id] = await recordDeliveries(acct, [{ callSid: `CA-gap-${gapMs}` }]);
    await markFailed([id!]);
    const first = await acct.as("POST", `/api/webhook-deliveries/${id}/retry`);
    await sleep(gapMs);
    const second = await acct.as("POST", `/api/webhook-deliveries/${id}/retry`);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.delivery.id).toBe(id);
    await until(
      async () => (await acct.as("GET", `/api/webhook-deliveries/${id}`)).body.delivery.status === "DELIVERED",
      "DELIVERED",
      15_000,
      100,
    );
    await sleep(1500);
    expect(receivedAt(`/${acct.id}`)).toHaveLength(1);
  });
});

describe("POST /api/webhook-deliveries/test", () => {
  async function numberFor(acct: TestAccount, overrides: Record<string, unknown> = {}) {
    const res = await acct.as("POST", "/api/phone-numbers", {
      body: numberBody({
        onCallStartUrl: receiver.url(`/t-start/${acct.id}`),
        onCallEndUrl: receiver.url(`/t-end/${acct.id}`),
        ...overrides,
      }),
    });
    expect(res.status, res.text).toBe(201);
    return res.body.phoneNumber.id as string;
  }

  describe("happy", () => {
    it("sends a signed sample event with data.test = true and answers the delivery with its attempt", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      receiver.answer((_r, res) => res.writeHead(202).end("verified"));
      const phoneNumberId = await numberFor(acct);
      const secret = (await acct.as("GET", "/api/account")).body.account.webhookSecret as string;

      const res = await acct.as("POST", "/api/webhook-deliveries/test", {
        body: { phoneNumberId, type: "call.ended" },
      });
      expect(res.status, res.text).toBe(200);
      const d = res.body.delivery;
      expect(d).toMatchObject({
        eventType: "call.ended",
        status: "DELIVERED",
        attemptCount: 1,
        url: receiver.url(`/t-end/${acct.id}`),
        callSid: `CA${"0".repeat(32)}`,
      });
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ statusCode: 202, responseExcerpt: "verified", error: null });
      expect(d.attempts[0].latencyMs).toBeGreaterThanOrEqual(0);
      expect(d.payload).toMatchObject({
        type: "call.ended",
        data: { test: true, phoneNumberId, status: "completed", durationSeconds: 42, billedMinutes: 1 },
      });

      const got = receiver.received.filter((r) => r.path === `/t-end/${acct.id}`);
      expect(got).toHaveLength(1);
      const verified = new Webhook(secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as {
        id: string;
        data: { test: boolean };
      };
      expect(verified.id).toBe(d.eventId);
      expect(verified.data.test).toBe(true);
      // Issue #22 finding 11: the sample event is what the published webhook schema describes.
      await checkEventContract(JSON.parse(got[0]!.body));
      expect(() =>
        new Webhook(`whsec_${Buffer.from("another-secret-entirely-32-bytes").toString("base64")}`).verify(
          got[0]!.body,
          got[0]!.headers as Record<string, string>,
        ),
      ).toThrow();

      // It is in the delivery log like any event.
      const listed = await acct.as("GET", "/api/webhook-deliveries");
      expect(listed.body.deliveries.map((x: { id: string }) => x.id)).toContain(d.id);

      // call.started goes to onCallStartUrl.
      const started = await acct.as("POST", "/api/webhook-deliveries/test", {
        body: { phoneNumberId, type: "call.started" },
      });
      expect(started.body.delivery).toMatchObject({
        eventType: "call.started",
        url: receiver.url(`/t-start/${acct.id}`),
        payload: { data: { test: true } },
      });
      await checkEventContract(started.body.delivery.payload);
    });

    it("a failing endpoint: the attempt is recorded as FAILED and not retried", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      receiver.answer((_r, res) => res.writeHead(500).end("boom"));
      const phoneNumberId = await numberFor(acct, { onErrorUrl: receiver.url(`/t-error/${acct.id}`) });
      const res = await acct.as("POST", "/api/webhook-deliveries/test", {
        body: { phoneNumberId, type: "call.error" },
      });
      expect(res.status).toBe(200);
      expect(res.body.delivery).toMatchObject({
        eventType: "call.error",
        status: "FAILED",
        nextAttemptAt: null,
        payload: { data: { test: true, error: { code: "CALL_FAILED" } } },
      });
      expect(res.body.delivery.attempts[0]).toMatchObject({ statusCode: 500, responseExcerpt: "boom" });
      // Off the delivery queue too: no worker takes it up later.
      const queued = await sql("permissive").query(`SELECT "runAt" FROM "WebhookDelivery" WHERE id = $1`, [
        res.body.delivery.id,
      ]);
      expect(queued.rows[0].runAt).toBeNull();
      await sleep(1500);
      expect(receiver.received.filter((r) => r.path === `/t-error/${acct.id}`)).toHaveLength(1);
    });
  });

  describe("error", () => {
    // Issue #22 finding 5: 347 test POSTs to one URL in 5 s used to go through.
    it("at most 10 a minute per account; the 11th is 429 RATE_LIMITED with Retry-After and sends nothing", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      receiver.answer((_r, res) => res.end("ok"));
      const phoneNumberId = await numberFor(acct);
      for (let k = 0; k < 10; k++) {
        const res = await acct.as("POST", "/api/webhook-deliveries/test", {
          body: { phoneNumberId, type: "call.ended" },
        });
        expect(res.status, res.text).toBe(200);
      }
      const limited = await acct.as("POST", "/api/webhook-deliveries/test", {
        body: { phoneNumberId, type: "call.ended" },
      });
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe("RATE_LIMITED");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(receivedAt(`/t-end/${acct.id}`)).toHaveLength(10);
      // Another account is not held back by this one.
      const other = await newActiveAccount({ server: "permissive" });
      expect(
        (
          await other.as("POST", "/api/webhook-deliveries/test", {
            body: { phoneNumberId: await numberFor(other), type: "call.ended" },
          })
        ).status,
      ).toBe(200);
    });

    it("400 without a URL for the type or with a bad type, 404 for an unknown number", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      const phoneNumberId = await numberFor(acct);
      const noUrl = await acct.as("POST", "/api/webhook-deliveries/test", {
        body: { phoneNumberId, type: "call.error" },
      });
      expect(noUrl.status).toBe(400);
      expect(noUrl.body.error).toMatchObject({
        code: "VALIDATION_FAILED",
        message: expect.stringContaining("onErrorUrl"),
      });
      const badType = await acct.as("POST", "/api/webhook-deliveries/test", {
        body: { phoneNumberId, type: "call.maybe" },
      });
      expect(badType.status).toBe(400);
      expect((await acct.as("POST", "/api/webhook-deliveries/test", { body: { type: "call.ended" } })).status).toBe(
        400,
      );
      const unknown = await acct.as("POST", "/api/webhook-deliveries/test", {
        body: { phoneNumberId: "nope", type: "call.ended" },
      });
      expect(unknown.status).toBe(404);
    });
  });

  describe("security", () => {
    it("401 without a key; another account's number is 403 NUMBER_NOT_OWNED and nothing is sent", async () => {
      expect((await call("POST", "/api/webhook-deliveries/test", { server: "permissive", body: {} })).status).toBe(401);
      const a = await newActiveAccount({ server: "permissive" });
      const b = await newActiveAccount({ server: "permissive" });
      const phoneNumberId = await numberFor(a);
      const res = await b.as("POST", "/api/webhook-deliveries/test", { body: { phoneNumberId, type: "call.ended" } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("NUMBER_NOT_OWNED");
      expect(receiver.received.filter((r) => r.path === `/t-end/${a.id}`)).toHaveLength(0);
    });

    it("the URL policy is checked again at send time", async () => {
      // The strict server refuses private addresses; a number whose URL became private since is not sent to.
      const acct = await newActiveAccount({ server: "strict" });
      const created = await acct.as("POST", "/api/phone-numbers", { body: numberBody() });
      expect(created.status).toBe(201);
      const id = created.body.phoneNumber.id as string;
      await seed("strict").update("PhoneNumber", { id }, { onCallEndUrl: receiver.url(`/t-private/${acct.id}`) });
      const res = await acct.as("POST", "/api/webhook-deliveries/test", {
        body: { phoneNumberId: id, type: "call.ended" },
      });
      expect(res.status).toBe(200);
      expect(res.body.delivery.status).toBe("FAILED");
      expect(res.body.delivery.attempts[0]).toMatchObject({
        statusCode: null,
        error: expect.stringContaining("invalid_url"),
      });
      expect(receiver.received.filter((r) => r.path === `/t-private/${acct.id}`)).toHaveLength(0);
    });
  });
});

describe("POST /api/webhook-deliveries/replay", () => {
  async function setCreatedAt(id: string, at: Date) {
    await seed("permissive").update("WebhookDelivery", { id }, { createdAt: at });
  }

  describe("happy", () => {
    it("queues again exactly the matching deliveries, each once even when replay is clicked twice at once", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      const other = await newActiveAccount({ server: "permissive" });
      receiver.answer((_r, res) => res.end("ok"));
      const [recent1, recent2, delivered, old] = await recordDeliveries(acct, [
        { callSid: "CA-r1" },
        { callSid: "CA-r2" },
        { callSid: "CA-r3" },
        { callSid: "CA-r4" },
      ]);
      const [othersFailed] = await recordDeliveries(other, [{ callSid: "CA-o1" }]);
      await markFailed([recent1!, recent2!, old!, othersFailed!]);
      await seed("permissive").update("WebhookDelivery", { id: delivered }, { status: "DELIVERED", cycleAttempts: 1 });
      const hourAgo = new Date(Date.now() - 3600_000);
      await setCreatedAt(old!, new Date(Date.now() - 3 * 24 * 3600_000));

      // Issue #22 finding 5: once a minute per account, so the second of two at once is refused.
      const both = await Promise.all([
        acct.as("POST", "/api/webhook-deliveries/replay", { body: { since: hourAgo.toISOString() } }),
        acct.as("POST", "/api/webhook-deliveries/replay", { body: { since: hourAgo.toISOString() } }),
      ]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 429]);
      const first = both.find((r) => r.status === 200)!;
      const limited = both.find((r) => r.status === 429)!;
      expect(first.body).toEqual({ queued: 2, more: false });
      expect(limited.body.error.code).toBe("RATE_LIMITED");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);

      const paths = () => receiver.received.filter((r) => r.path === `/${acct.id}` || r.path === `/${other.id}`);
      await until(() => paths().length >= 2, "two deliveries", 15_000, 100);
      await sleep(1500);
      const ids = paths().map((r) => r.headers["webhook-id"]);
      expect(ids).toHaveLength(2);
      const events = await Promise.all(
        [recent1, recent2].map(async (id) => (await acct.as("GET", `/api/webhook-deliveries/${id}`)).body.delivery),
      );
      expect(new Set(ids)).toEqual(new Set(events.map((e) => e.eventId)));
      for (const e of events) expect(e.status).toBe("DELIVERED");

      // Within the minute, even a replay that would match others is refused.
      const again = await acct.as("POST", "/api/webhook-deliveries/replay", {
        body: { since: new Date(Date.now() - 4 * 24 * 3600_000).toISOString(), status: "FAILED" },
      });
      expect(again.status).toBe(429);
      // The rule itself (no limiter): status picks others; the old one is reachable with an earlier since.
      const fourDaysAgo = new Date(Date.now() - 4 * 24 * 3600_000);
      expect(
        await sqlTransaction((trx) =>
          replayMatching(trx, { accountId: acct.id, status: "FAILED", since: fourDaysAgo }),
        ),
      ).toEqual({ queued: 1, more: false });
    });

    it("a delivery still queued is not restarted by another replay: its schedule is neither reset nor extended", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      const [id] = await recordDeliveries(acct, [{ callSid: "CA-requeue" }]);
      await markFailed([id!]);
      const since = new Date(Date.now() - 3600_000);
      expect(
        await sqlTransaction((trx) => replayMatching(trx, { accountId: acct.id, status: "FAILED", since })),
      ).toEqual({ queued: 1, more: false });
      // Its new cycle is under way: three attempts made, the fourth due in an hour.
      const underWay = await seed("permissive").update(
        "WebhookDelivery",
        { id },
        { cycleAttempts: 3, nextAttemptAt: fromNow("1 hour") },
      );
      expect(underWay).toMatchObject([{ status: "PENDING", cycleAttempts: 3 }]);
      const before = (
        await sql("permissive").query(
          `SELECT status, "cycleAttempts", "nextAttemptAt" FROM "WebhookDelivery" WHERE id = $1`,
          [id],
        )
      ).rows[0];
      for (const status of ["FAILED", "PENDING", "DELIVERED"] as const) {
        expect(await sqlTransaction((trx) => replayMatching(trx, { accountId: acct.id, status, since }))).toEqual({
          queued: 0,
          more: false,
        });
      }
      const after = (
        await sql("permissive").query(
          `SELECT status, "cycleAttempts", "nextAttemptAt" FROM "WebhookDelivery" WHERE id = $1`,
          [id],
        )
      ).rows[0];
      expect(after).toEqual(before);
    });

    it("queues at most 1,000 deliveries a call, and says when more match", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      receiver.answer((_r, res) => res.end("ok"));
      await seed("permissive").webhookDeliveries(
        Array.from({ length: 1001 }, () => {
          const event = buildEvent("call.ended", {
            callSid: "CA-bulk",
            direction: "inbound",
            from: "+14155550100",
            to: "+14155550123",
            phoneNumberId: null,
          });
          return {
            accountId: acct.id,
            eventId: event.id,
            eventType: event.type,
            callSid: "CA-bulk",
            url: receiver.url(`/bulk/${acct.id}`),
            payload: JSON.stringify(event),
            status: "FAILED" as const,
            cycleAttempts: 8,
          };
        }),
      );
      const res = await acct.as("POST", "/api/webhook-deliveries/replay", {
        body: { since: new Date(Date.now() - 3600_000).toISOString() },
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ queued: 1000, more: true });
      const { rows } = await sql("permissive").query(
        `SELECT status, count(*)::int AS n FROM "WebhookDelivery" WHERE "accountId" = $1 GROUP BY status ORDER BY status`,
        [acct.id],
      );
      const counts = Object.fromEntries(rows.map((r: { status: string; n: number }) => [r.status, r.n]));
      expect((counts.PENDING ?? 0) + (counts.DELIVERED ?? 0)).toBe(1000);
      expect(counts.FAILED).toBe(1);
    });
  });

  describe("error", () => {
    it("400 for since more than 14 days ago, in the future, malformed, or a bad status", async () => {
      const acct = await newActiveAccount({ server: "permissive" });
      for (const body of [
        { since: new Date(Date.now() - 15 * 24 * 3600_000).toISOString() },
        { since: new Date(Date.now() + 3600_000).toISOString() },
        { since: "yesterday" },
        {},
        { since: new Date().toISOString(), status: "LOST" },
      ]) {
        const res = await acct.as("POST", "/api/webhook-deliveries/replay", { body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe("VALIDATION_FAILED");
      }
    });
  });

  describe("security", () => {
    it("401 without a key", async () => {
      expect(
        (
          await call("POST", "/api/webhook-deliveries/replay", {
            server: "permissive",
            body: { since: new Date().toISOString() },
          })
        ).status,
      ).toBe(401);
    });
  });
});

describe("call.started, sent synchronously", () => {
  it("is signed like every event and returns the customer's answer", async () => {
    const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
    const event = buildEvent("call.started", {
      callSid: "CA-sync",
      direction: "inbound",
      from: "+14155550100",
      to: "+14155550123",
      phoneNumberId: "pn",
    });
    receiver.answer((_r, res) =>
      res.writeHead(200, { "content-type": "application/xml" }).end("<Response><Say>Hi</Say></Response>"),
    );
    const res = await postCallStarted({ url: receiver.url("/start"), event, secrets: [secret] });
    expect(res.status).toBe(200);
    expect(res.body).toBe("<Response><Say>Hi</Say></Response>");
    const got = receiver.received.find((r) => r.path === "/start")!;
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(event);
  });

  it("gives up after CALLBACK_START_TIMEOUT_MS", async () => {
    receiver.answer(() => undefined);
    const event = buildEvent("call.started", {
      callSid: "CA-slow",
      direction: "inbound",
      from: "+14155550100",
      to: "+14155550123",
      phoneNumberId: null,
    });
    const started = Date.now();
    const { env } = await import("../../src/server/env");
    await expect(
      postCallStarted({ url: receiver.url("/slow-start"), event, secrets: ["whsec_AAAA"] }),
    ).rejects.toMatchObject({ kind: "timeout" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(env().callbackStartTimeoutMs - 50);
    expect(Date.now() - started).toBeLessThan(env().callbackStartTimeoutMs + 1000);
  });
});

describe("GET /api/lookup (the dashboard's search box)", () => {
  it("finds a call SID, an event id, a delivery id and a number typed any common way; nothing of another account", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const own = (await acct.as("POST", "/api/phone-numbers", { body: numberBody() })).body.phoneNumber as {
      id: string;
    };
    const callSid = `CA${"ab".repeat(14)}${Math.random().toString(16).slice(2, 6)}`;
    await seed("permissive").call({
      callSid,
      accountId: acct.id,
      phoneNumberId: own.id,
      fromNumber: "+14155550166",
      toNumber: "+14155550177",
    });
    const [deliveryId] = await recordDeliveries(acct, [{ callSid }]);
    const eventId = (await acct.as("GET", `/api/webhook-deliveries/${deliveryId}`)).body.delivery.eventId as string;
    const find = async (q: string) => {
      const res = await acct.as("GET", `/api/lookup?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      return res.body.match;
    };
    expect(await find(callSid)).toEqual({ kind: "call", callSid });
    expect(await find(` ${callSid} `)).toEqual({ kind: "call", callSid });
    expect(await find(eventId)).toEqual({ kind: "delivery", id: deliveryId, eventId });
    expect(await find(deliveryId!)).toEqual({ kind: "delivery", id: deliveryId, eventId });
    // The caller's number: its latest call.
    expect(await find("(415) 555-0166")).toEqual({ kind: "call", callSid });
    expect(await find("nothing-by-this-name")).toBeNull();
    expect((await acct.as("GET", "/api/lookup?q=")).status).toBe(400);

    const stranger = await newActiveAccount({ server: "permissive" });
    for (const q of [callSid, eventId, deliveryId!, "+14155550166"])
      expect((await stranger.as("GET", `/api/lookup?q=${encodeURIComponent(q)}`)).body.match, q).toBeNull();
    expect((await call("GET", "/api/lookup?q=x", { server: "permissive" })).status).toBe(401);
  });

  it("one of the account's numbers, typed formatted, names the number", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const body = numberBody();
    const created = (await acct.as("POST", "/api/phone-numbers", { body })).body.phoneNumber as { id: string };
    const digits = (body.phoneNumber as string).slice(2);
    const formatted = `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
    expect((await acct.as("GET", `/api/lookup?q=${encodeURIComponent(formatted)}`)).body.match).toEqual({
      kind: "number",
      phoneNumberId: created.id,
      phoneNumber: body.phoneNumber,
    });
  });
});
