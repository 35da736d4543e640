import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallbackClient } from "../../src/server/webhooks/http/callback-http-client";
import { db } from "../../src/server/db/client";
import { attemptDelivery, type AttemptDeps } from "../../src/server/services/deliveries/attempt-delivery";
import { pruneOldAttempts } from "../../src/server/workers/delivery-worker";
import { transactionWithEvents } from "../../src/server/webhooks/enqueue-event";
import { buildEvent, type EventEnvelope } from "../../src/server/webhooks/event-envelope";
import { newActiveAccount, sql, type TestAccount } from "../support/api";
import { manualClock, startInProcess } from "../support/in-process";
import { startReceiver } from "../support/receiver";

let inProcess: Awaited<ReturnType<typeof startInProcess>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let account: TestAccount;

beforeAll(async () => {
  inProcess = await startInProcess();
  receiver = await startReceiver();
  account = await newActiveAccount({ server: "permissive" });
});
afterAll(async () => {
  await receiver.close();
  await inProcess.stop();
});

function endedEvent(callSid = `CA${Math.random().toString(16).slice(2)}`): EventEnvelope {
  return buildEvent("call.ended", {
    callSid,
    direction: "inbound",
    from: "+14155550100",
    to: "+14155550123",
    phoneNumberId: null,
    status: "completed",
    durationSeconds: 61,
    billedMinutes: 2,
  });
}

async function enqueue(event = endedEvent(), path = "/hook"): Promise<string> {
  return transactionWithEvents((_tx, emit) => emit({ accountId: account.id, url: receiver.url(path), event }));
}

const clock = manualClock();
const deps = (extra: Partial<AttemptDeps> = {}): AttemptDeps => ({
  client: createCallbackClient({ allowPrivate: true }),
  now: clock.now,
  random: () => 0,
  ...extra,
});

const deliveryRow = (id: string) =>
  db().webhookDelivery.findUniqueOrThrow({ where: { id }, include: { attempts: { orderBy: { attemptedAt: "asc" } } } });
/** The delivery's place in the queue (its own row: jobs/delivery-queue/), with its lane as the database computes it. */
const queued = async (id: string) =>
  (
    await sql("permissive").query(
      `SELECT queue, lane, "runAt", "claimedAt", routekit_lane("accountId", url) AS "expectedLane"
       FROM "WebhookDelivery" WHERE id = $1`,
      [id],
    )
  ).rows[0] as { queue: string; lane: string; runAt: Date | null; claimedAt: Date | null; expectedLane: string };
const rowsOfEvent = (eventId: string) => db().webhookDelivery.count({ where: { eventId } });

describe("durable, signed delivery", () => {
  it("queues the delivery as it is written, in the caller's transaction; a rollback leaves nothing", async () => {
    const event = endedEvent();
    await expect(
      transactionWithEvents(async (_tx, emit) => {
        await emit({ accountId: account.id, url: receiver.url(), event });
        throw new Error("the state change failed");
      }),
    ).rejects.toThrow("the state change failed");
    expect(await rowsOfEvent(event.id)).toBe(0);
    const id = await enqueue();
    const q = await queued(id);
    // On this process's queue (the test's own), due now, not claimed, in its destination's lane.
    expect(q).toMatchObject({ queue: inProcess.schema, claimedAt: null, lane: q.expectedLane });
    expect(q.runAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("fans an event out to the account's subscribed endpoints in the same transaction: a rollback leaves no delivery of any destination", async () => {
    const fan = await newActiveAccount({ server: "permissive" });
    for (const [path, eventTypes] of [
      ["/fan-a", ["call.ended"]],
      ["/fan-b", ["*"]],
      ["/fan-c", ["call.error"]],
    ] as const) {
      const res = await fan.as("POST", "/api/webhook-endpoints", { body: { url: receiver.url(path), eventTypes } });
      expect(res.status).toBe(201);
    }
    const event = endedEvent();
    await expect(
      transactionWithEvents(async (_tx, emit) => {
        await emit({ accountId: fan.id, url: receiver.url("/fan-number"), event });
        throw new Error("the state change failed");
      }),
    ).rejects.toThrow("the state change failed");
    expect(await rowsOfEvent(event.id)).toBe(0);

    const numberDelivery = await transactionWithEvents((_tx, emit) =>
      emit({ accountId: fan.id, url: receiver.url("/fan-number"), event }),
    );
    const rows = await db().webhookDelivery.findMany({ where: { eventId: event.id } });
    // The number's URL and the two subscribed endpoints; emit answers the number's delivery.
    expect(rows.map((r) => r.url).sort()).toEqual([
      receiver.url("/fan-a"),
      receiver.url("/fan-b"),
      receiver.url("/fan-number"),
    ]);
    expect(rows.find((r) => r.endpointId === null)!.id).toBe(numberDelivery);
    // Each queued in its own destination's lane.
    for (const row of rows) {
      const q = await queued(row.id);
      expect(q, row.url).toMatchObject({ queue: inProcess.schema, lane: q.expectedLane });
      expect(q.runAt, row.url).not.toBeNull();
    }
    expect(new Set(await Promise.all(rows.map(async (r) => (await queued(r.id)).lane))).size).toBe(3);
  });

  it("2xx: delivered once, signed so the standardwebhooks library verifies it", async () => {
    const path = "/ok";
    receiver.answer((_r, res) => res.writeHead(204).end());
    const event = endedEvent();
    const id = await enqueue(event, path);
    expect(await attemptDelivery({ deliveryId: id, expectedAttempt: 0 }, deps())).toBe("delivered");
    // The job running again (a crash after the attempt) sends nothing twice.
    expect(await attemptDelivery({ deliveryId: id, expectedAttempt: 0 }, deps())).toBe("skipped");
    const got = receiver.received.filter((r) => r.path === path);
    expect(got).toHaveLength(1);
    const secret = (await account.as("GET", "/api/account")).body.account.webhookSecret;
    expect(new Webhook(secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>)).toEqual(event);
    expect(got[0]!.headers["webhook-id"]).toBe(event.id);
    const row = await deliveryRow(id);
    expect(row).toMatchObject({ status: "DELIVERED", attemptCount: 1, nextAttemptAt: null });
    expect(row.attempts[0]).toMatchObject({ statusCode: 204, error: null });
  });

  it("500 then 200: retried on schedule, then delivered; every attempt logged", async () => {
    let calls = 0;
    receiver.answer((_r, res) => res.writeHead(++calls === 1 ? 500 : 200).end(calls === 1 ? "boom" : "fine"));
    const id = await enqueue(endedEvent(), "/flaky");
    clock.set(new Date("2026-11-22T12:00:00Z"));
    expect(await attemptDelivery({ deliveryId: id, expectedAttempt: 0 }, deps())).toBe("retry-scheduled");
    const after1 = await deliveryRow(id);
    expect(after1.status).toBe("PENDING");
    expect(after1.nextAttemptAt!.toISOString()).toBe("2026-11-22T12:00:05.000Z");
    // The retry is the same row, due at the next attempt, in the same lane: one row per delivery, retries included.
    const q = await queued(id);
    expect(q.runAt!.toISOString()).toBe("2026-11-22T12:00:05.000Z");
    expect(q).toMatchObject({ claimedAt: null, lane: q.expectedLane });
    expect(await rowsOfEvent(after1.eventId)).toBe(1);
    clock.advance(5_000);
    expect(await attemptDelivery({ deliveryId: id, expectedAttempt: 1 }, deps())).toBe("delivered");
    expect((await queued(id)).runAt).toBeNull();
    const done = await deliveryRow(id);
    expect(done.attempts.map((a) => [a.statusCode, a.responseExcerpt])).toEqual([
      [500, "boom"],
      [200, "fine"],
    ]);
  });

  it("the schedule advances over 8 attempts and more than 24 hours, then gives up", async () => {
    receiver.answer((_r, res) => res.writeHead(503).end());
    const id = await enqueue(endedEvent(), "/down");
    const start = new Date("2026-11-22T00:00:00Z");
    clock.set(start);
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      outcomes.push(await attemptDelivery({ deliveryId: id, expectedAttempt: attempt }, deps()));
      const row = await deliveryRow(id);
      if (row.nextAttemptAt) clock.set(row.nextAttemptAt);
    }
    expect(outcomes).toEqual([...Array(7).fill("retry-scheduled"), "failed"]);
    const row = await deliveryRow(id);
    expect(row.status).toBe("FAILED");
    const times = row.attempts.map((a) => a.attemptedAt.getTime() - start.getTime());
    expect(times).toEqual([0, 5_000, 305_000, 2_105_000, 9_305_000, 27_305_000, 63_305_000, 99_305_000]);
    expect(times.at(-1)!).toBeGreaterThan(24 * 3600_000);
  });

  it("410 Gone stops at once; Retry-After is honoured", async () => {
    receiver.answer((_r, res) => res.writeHead(410).end());
    const gone = await enqueue(endedEvent(), "/gone");
    expect(await attemptDelivery({ deliveryId: gone, expectedAttempt: 0 }, deps())).toBe("failed");
    // Off the queue: nothing more is sent.
    expect((await queued(gone)).runAt).toBeNull();

    receiver.answer((_r, res) => res.writeHead(429, { "retry-after": "120" }).end());
    const busy = await enqueue(endedEvent(), "/busy");
    clock.set(new Date("2026-11-22T12:00:00Z"));
    await attemptDelivery({ deliveryId: busy, expectedAttempt: 0 }, deps());
    expect((await deliveryRow(busy)).nextAttemptAt!.toISOString()).toBe("2026-11-22T12:02:00.000Z");
  });

  it("a timeout is a failed attempt, retried; redirects are failures, never followed", async () => {
    receiver.answer(() => undefined); // never answers
    const slow = await enqueue(endedEvent(), "/slow");
    expect(await attemptDelivery({ deliveryId: slow, expectedAttempt: 0 }, deps({ timeoutMs: 300 }))).toBe(
      "retry-scheduled",
    );
    expect((await deliveryRow(slow)).attempts[0]).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^timeout/),
    });

    receiver.answer((r, res) =>
      res.writeHead(r.path === "/moved" ? 301 : 200, { location: receiver.url("/elsewhere") }).end(),
    );
    const moved = await enqueue(endedEvent(), "/moved");
    expect(await attemptDelivery({ deliveryId: moved, expectedAttempt: 0 }, deps())).toBe("retry-scheduled");
    expect(receiver.received.some((r) => r.path === "/elsewhere")).toBe(false);
  });

  it("keeps at most 1 KiB of a response", async () => {
    receiver.answer((_r, res) => res.writeHead(500).end("x".repeat(5000)));
    const id = await enqueue(endedEvent(), "/big");
    await attemptDelivery({ deliveryId: id, expectedAttempt: 0 }, deps());
    expect((await deliveryRow(id)).attempts[0]!.responseExcerpt).toHaveLength(1024);
  });

  it("after a rotation, events verify with the old and the new secret for 24 hours", async () => {
    const acct = await newActiveAccount({ server: "permissive" });
    const oldSecret = (await acct.as("GET", "/api/account")).body.account.webhookSecret;
    const rotated = await acct.as("POST", "/api/account/webhook-secret");
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhookSecret).not.toBe(oldSecret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((await acct.as("GET", "/api/account")).body.account.webhookSecret).toBe(rotated.body.webhookSecret);

    receiver.answer((_r, res) => res.end());
    const event = endedEvent();
    const id = await transactionWithEvents((_tx, emit) =>
      emit({ accountId: acct.id, url: receiver.url("/rotated"), event }),
    );
    clock.set(new Date());
    await attemptDelivery({ deliveryId: id, expectedAttempt: 0 }, deps());
    const got = receiver.received.find((r) => r.path === "/rotated")!;
    const headers = got.headers as Record<string, string>;
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(rotated.body.webhookSecret).verify(got.body, headers)).toEqual(event);
    expect(new Webhook(oldSecret).verify(got.body, headers)).toEqual(event);
  });

  it("prunes attempts older than 30 days", async () => {
    receiver.answer((_r, res) => res.end());
    const id = await enqueue(endedEvent(), "/prune");
    await attemptDelivery({ deliveryId: id, expectedAttempt: 0 }, deps());
    await db().webhookAttempt.updateMany({
      where: { deliveryId: id },
      data: { attemptedAt: new Date(Date.now() - 31 * 24 * 3600_000) },
    });
    expect(await pruneOldAttempts()).toBeGreaterThanOrEqual(1);
    expect((await deliveryRow(id)).attempts).toHaveLength(0);
  });
});
