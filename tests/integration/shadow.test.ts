import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simulateInboundCall } from "../../src/twilio-simulator/twilio-simulator";
import { newActiveAccount, newMember, numberBody, randomUsNumber, seed, type TestAccount } from "../support/api";
import { type Received, startReceiver } from "../support/receiver";
import { until } from "../support/until";

// docs/decisions.md §23: a number's shadow backend and the replay of a past call. The permissive server runs
// with CALLBACK_START_TIMEOUT_MS=1500 (integration-global-setup.ts): a shadow that hangs is given up after the
// primary's timeout, so "hangs for 30 s" costs the suite 1.5 s; the cases run concurrently, each on its own account.

const PRIMARY_TWIML = "<Response><Say>Hello from the primary</Say></Response>";
// The same document as the primary's once normalised: other whitespace, a declaration, another quoting.
const SAME_TWIML =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Response>\n  <Say>Hello   from the primary</Say>\n</Response>';
const OTHER_TWIML = "<Response><Say>Hello from version two</Say></Response>";
const HANG_MS = 30_000;

type Backend = Awaited<ReturnType<typeof startReceiver>>;
let events: Backend;
let primary: Backend;
/** Answers by path: /same, /different, /hang (30 s, or until the engine gives up), /fail (500). */
let shadows: Backend;
const hanging = new Set<ServerResponse>();

const xml = (res: ServerResponse, body: string) => res.writeHead(200, { "content-type": "application/xml" }).end(body);

beforeAll(async () => {
  events = await startReceiver((_r, res) => res.writeHead(200).end("ok"));
  primary = await startReceiver((_r, res) => xml(res, PRIMARY_TWIML));
  shadows = await startReceiver((r, res) => {
    const path = r.path.split("?")[0]!;
    if (path.endsWith("/same")) return xml(res, SAME_TWIML);
    if (path.endsWith("/different")) return xml(res, OTHER_TWIML);
    if (path.endsWith("/fail")) return res.writeHead(500).end("nope");
    if (path.endsWith("/hang")) {
      hanging.add(res);
      const timer = setTimeout(() => xml(res, PRIMARY_TWIML), HANG_MS);
      res.on("close", () => {
        clearTimeout(timer);
        hanging.delete(res);
      });
      return;
    }
    return res.writeHead(404).end();
  });
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await Promise.all([events.close(), primary.close(), shadows.close()]);
});

type Num = { account: TestAccount; number: string; id: string };

async function number(account: TestAccount, extra: Record<string, unknown> = {}): Promise<Num> {
  const phoneNumber = randomUsNumber();
  const res = await account.as("POST", "/api/phone-numbers", {
    body: numberBody({
      phoneNumber,
      onCallStartUrl: primary.url(`/${account.id}/start`),
      onCallEndUrl: events.url(`/${account.id}/end`),
      ...extra,
    }),
  });
  expect(res.status, res.text).toBe(201);
  expect(res.body.phoneNumber.shadow).toBeNull();
  return { account, number: phoneNumber, id: res.body.phoneNumber.id };
}

async function setShadow(n: Num, shadow: Record<string, unknown> | null) {
  const res = await n.account.as("PATCH", `/api/phone-numbers/${n.id}`, { body: { shadow } });
  expect(res.status, res.text).toBe(200);
  return res.body.phoneNumber;
}

async function ring(n: Num) {
  const played = await simulateInboundCall({
    engineUrl: n.account.engineVoiceUrl,
    from: "+14155550100",
    to: n.number,
    durationSeconds: 1,
  });
  return { callSid: played.callSid, answer: played.answer! };
}

async function report(n: Num, query = "") {
  const res = await n.account.as("GET", `/api/phone-numbers/${n.id}/shadow${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The report once it has counted `mirrored` calls. */
const reportWith = (n: Num, mirrored: number) =>
  until(async () => {
    const r = await report(n);
    return r.report.mirrored >= mirrored && r;
  }, `${mirrored} mirrored calls in the report`);

/** An event's data, or {} for a request that is not one. */
const dataOf = (r: Received): Record<string, unknown> => {
  try {
    return (JSON.parse(r.body) as { data?: Record<string, unknown> }).data ?? {};
  } catch {
    return {};
  }
};

const shadowRequests = (n: Num): Received[] =>
  shadows.received.filter((r) => dataOf(r).to === n.number && dataOf(r).shadow === true);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe.concurrent("a number's shadow backend (docs/decisions.md §23)", () => {
  it("same, different and hanging shadows never slow the primary's answer, and the report counts each right", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const plain = await number(account);
    const kinds = ["same", "different", "hang"] as const;
    const nums = await Promise.all(kinds.map(() => number(account)));
    const set = await Promise.all(
      kinds.map((k, i) => setShadow(nums[i]!, { onCallStartUrl: shadows.url(`/${account.id}/${k}`) })),
    );
    expect(set[0].shadow).toMatchObject({
      onCallStartUrl: shadows.url(`/${account.id}/same`),
      sampleRate: 1,
      until: null,
    });

    // Warm the routing of every number, then three calls each, all at once: no-shadow against each shadow.
    await Promise.all([plain, ...nums].map((n) => ring(n)));
    const rounds = await Promise.all(
      [plain, ...nums].map(async (n) => {
        const calls = [];
        for (let i = 0; i < 3; i++) calls.push(await ring(n));
        return calls;
      }),
    );
    for (const calls of rounds)
      for (const c of calls) {
        expect(c.answer.status).toBe(200);
        expect(c.answer.body).toBe(PRIMARY_TWIML);
      }
    const baseline = median(rounds[0]!.map((c) => c.answer.ms));
    for (const calls of rounds.slice(1)) {
      const ms = median(calls.map((c) => c.answer.ms));
      // As fast as without a shadow, with a margin for a shared 2-core machine; far below the hang's 1.5 s timeout.
      expect(ms, `median ${ms} ms against ${baseline} ms without a shadow`).toBeLessThan(baseline + 250);
      expect(Math.max(...calls.map((c) => c.answer.ms))).toBeLessThan(1200);
    }

    const [same, different, hang] = await Promise.all(nums.map((n) => reportWith(n, 4)));
    expect(same.report).toMatchObject({ mirrored: 4, skipped: 0, same: 4, different: 0, failed: 0 });
    expect(same.calls).toEqual([]);
    expect(same.report.primaryLatencyMs.p50).toBeGreaterThanOrEqual(0);
    expect(different.report).toMatchObject({ mirrored: 4, same: 0, different: 4, failed: 0 });
    expect(different.calls).toHaveLength(4);
    const lastDifferent = rounds[2]![2]!.callSid;
    expect(different.calls[0]).toMatchObject({
      callSid: lastDifferent,
      outcome: "different",
      primary: { answer: "xml", twiml: PRIMARY_TWIML },
      shadow: { answer: "xml", twiml: OTHER_TWIML },
    });
    expect(different.calls[0].shadow.error).toBeUndefined();
    expect(hang.report).toMatchObject({ mirrored: 4, same: 0, different: 0, failed: 4 });
    expect(hang.calls[0]).toMatchObject({
      outcome: "failed",
      shadow: { answer: "START_CALLBACK_TIMEOUT", twiml: null },
    });
    expect(hang.calls[0].shadow.error).toMatch(/1500/);
    expect(hang.report.shadowLatencyMs.p50).toBeGreaterThanOrEqual(1400);
    expect(hang.report.primaryLatencyMs.p99).toBeLessThan(1000);

    // The shadow got its own event: its own webhook-id, data.shadow, signed with the same secret.
    const secret = (await account.as("GET", "/api/account")).body.account.webhookSecret;
    const toDifferent = shadowRequests(nums[1]!).find((r) => dataOf(r).callSid === lastDifferent)!;
    const toPrimary = primary.received.find((r) => dataOf(r).callSid === lastDifferent)!;
    const verified = new Webhook(secret).verify(toDifferent.body, toDifferent.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(verified.type).toBe("call.started");
    expect(verified.data).toMatchObject({ callSid: lastDifferent, shadow: true, phoneNumberId: nums[1]!.id });
    expect(JSON.parse(toPrimary.body).data.shadow).toBeUndefined();
    expect(toDifferent.headers["webhook-id"]).not.toBe(toPrimary.headers["webhook-id"]);
    // Sent at the same moment as the primary's, not after it.
    expect(Math.abs(toDifferent.at - toPrimary.at)).toBeLessThan(500);

    // The call's timeline shows the shadow's try beside the primary's; its TwiML is still the primary's.
    const call = await until(async () => {
      const res = await account.as("GET", `/api/calls/${lastDifferent}`);
      const tries = res.body.call?.timeline.filter((e: { type: string }) => e.type === "call.started") ?? [];
      return tries.length === 2 && res.body.call;
    }, "the shadow's try on the timeline");
    const tries = call.timeline.filter((e: { type: string }) => e.type === "call.started");
    expect(tries.map((t: { attempt: string }) => t.attempt).sort()).toEqual(["primary", "shadow"]);
    expect(tries.find((t: { attempt: string }) => t.attempt === "shadow")).toMatchObject({
      outcome: "xml",
      answerUse: "different",
      url: shadows.url(`/${account.id}/different`),
    });
    expect(call.answer).toBe("xml");
    expect(call.timeline.find((e: { type: string }) => e.type === "twiml").twiml).toBe(PRIMARY_TWIML);

    // In the delivery log with its kind, never redelivered.
    const log = await account.as("GET", `/api/webhook-deliveries?callSid=${lastDifferent}&kind=shadow`);
    expect(log.status, log.text).toBe(200);
    expect(log.body.deliveries).toHaveLength(1);
    expect(log.body.deliveries[0]).toMatchObject({ kind: "shadow", synchronous: true, status: "DELIVERED" });
    const all = await account.as("GET", `/api/webhook-deliveries?callSid=${lastDifferent}`);
    expect(all.body.deliveries.map((d: { kind: string }) => d.kind).sort()).toEqual(["event", "event", "shadow"]);
    const again = await account.as("POST", `/api/webhook-deliveries/${log.body.deliveries[0].id}/retry`);
    expect(again.status, again.text).toBe(400);
    expect(shadowRequests(nums[1]!).filter((r) => dataOf(r).callSid === lastDifferent)).toHaveLength(1);

    // ?since= narrows; a shadow removed is null, its report kept.
    const later = await report(nums[1]!, `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(later.report).toMatchObject({ mirrored: 0, different: 0 });
    expect(later.calls).toEqual([]);
    const cleared = await setShadow(nums[1]!, null);
    expect(cleared.shadow).toBeNull();
    const afterClear = await report(
      nums[1]!,
      `?since=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`,
    );
    expect(afterClear.shadow).toBeNull();
    expect(afterClear.report.different).toBe(4);

    const audit = await account.as("GET", "/api/audit-log?targetType=phone_number");
    const actions = audit.body.entries.map((e: { action: string }) => e.action);
    expect(actions.filter((a: string) => a === "phone_number.shadow_set")).toHaveLength(3);
    expect(actions).toContain("phone_number.shadow_cleared");
    const setEntry = audit.body.entries.find((e: { action: string }) => e.action === "phone_number.shadow_set");
    expect(JSON.stringify(setEntry.details)).not.toContain(account.id);
    // Sixteen calls and their reports, on a 2-core machine other suites share.
  }, 90_000);

  it("at most 10 shadow requests in flight per account: the 11th concurrent call is skipped and counted", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    // The shadow gets the primary's answerTimeoutMs: 5 s, so all 11 calls arrive while the first 10 hang.
    const n = await number(account, { answerTimeoutMs: 5000 });
    await setShadow(n, { onCallStartUrl: shadows.url(`/${account.id}/hang`) });
    const calls = await Promise.all(Array.from({ length: 11 }, () => ring(n)));
    for (const c of calls) {
      expect(c.answer.body).toBe(PRIMARY_TWIML);
      expect(c.answer.ms).toBeLessThan(2000);
    }
    const r = await until(
      async () => {
        const got = await report(n);
        return got.report.mirrored + got.report.skipped >= 11 && got;
      },
      "11 calls mirrored or skipped",
      20_000,
    );
    expect(r.report).toMatchObject({ mirrored: 10, skipped: 1, failed: 10 });
    expect(shadowRequests(n)).toHaveLength(10);
  });

  it("sampleRate 0 and an until in the past mirror nothing", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const [zero, past] = await Promise.all([number(account), number(account)]);
    await setShadow(zero, { onCallStartUrl: shadows.url(`/${account.id}/same`), sampleRate: 0 });
    const stored = await setShadow(past, {
      onCallStartUrl: shadows.url(`/${account.id}/same`),
      until: new Date(Date.now() - 1000).toISOString(),
    });
    expect(stored.shadow.until).not.toBeNull();
    const rung = await Promise.all([ring(zero), ring(zero), ring(past), ring(past)]);
    for (const c of rung) expect(c.answer.body).toBe(PRIMARY_TWIML);
    // Each call's own answer on record, then a moment more: nothing reached the shadow.
    for (const c of rung)
      await until(async () => {
        const res = await account.as("GET", `/api/calls/${c.callSid}`);
        return res.body.call?.answer === "xml";
      }, "the call's answer on record");
    await new Promise((r) => setTimeout(r, 300));
    expect(shadowRequests(zero)).toHaveLength(0);
    expect(shadowRequests(past)).toHaveLength(0);
    for (const n of [zero, past]) expect((await report(n)).report).toMatchObject({ mirrored: 0, skipped: 0 });
  });

  it("shadow input: a sampleRate out of range, and a bad URL, are 400; nothing is set", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const n = await number(account);
    for (const shadow of [
      { onCallStartUrl: shadows.url("/x"), sampleRate: 1.5 },
      { onCallStartUrl: "not a url" },
      { onCallStartUrl: shadows.url("/x"), until: "tomorrow" },
    ]) {
      const res = await account.as("PATCH", `/api/phone-numbers/${n.id}`, { body: { shadow } });
      expect(res.status, res.text).toBe(400);
    }
    expect((await account.as("GET", `/api/phone-numbers/${n.id}`)).body.phoneNumber.shadow).toBeNull();
    // Another account's number: its report is not this account's to read.
    const other = await newActiveAccount({ server: "permissive" });
    expect((await other.as("GET", `/api/phone-numbers/${n.id}/shadow`)).status).toBe(403);
    expect((await other.as("GET", "/api/phone-numbers/no-such-id/shadow")).status).toBe(404);
  });

  it("a private shadow URL is 400 under the production policy", async () => {
    const account = await newActiveAccount({ server: "strict" });
    const res = await account.as("POST", "/api/phone-numbers", { body: numberBody() });
    expect(res.status, res.text).toBe(201);
    for (const url of ["https://127.0.0.1/start", "https://10.1.2.3/start", "http://api.example.com/start"]) {
      const patched = await account.as("PATCH", `/api/phone-numbers/${res.body.phoneNumber.id}`, {
        body: { shadow: { onCallStartUrl: url } },
      });
      expect(patched.status, patched.text).toBe(400);
    }
    const ok = await account.as("PATCH", `/api/phone-numbers/${res.body.phoneNumber.id}`, {
      body: { shadow: { onCallStartUrl: "https://v2.example.com/start", sampleRate: 0.5 } },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.phoneNumber.shadow).toMatchObject({
      onCallStartUrl: "https://v2.example.com/start",
      sampleRate: 0.5,
    });
    const replay = await account.as("POST", "/api/calls/CA00000000000000000000000000000000/replay", {
      body: { onCallStartUrl: "https://192.168.0.1/start" },
    });
    expect(replay.status, replay.text).toBe(400);
  });

  it("a viewer reads the report but may neither set a shadow nor replay (403)", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const n = await number(account);
    const viewer = await newMember(account, "viewer");
    const read = await viewer.as("GET", `/api/phone-numbers/${n.id}/shadow`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.shadow).toBeNull();
    const set = await viewer.as("PATCH", `/api/phone-numbers/${n.id}`, {
      body: { shadow: { onCallStartUrl: shadows.url("/x/same") } },
    });
    expect(set.status, set.text).toBe(403);
    const { callSid } = await ring(n);
    const replay = await viewer.as("POST", `/api/calls/${callSid}/replay`, {
      body: { onCallStartUrl: shadows.url("/x/same") },
    });
    expect(replay.status, replay.text).toBe(403);
    const developer = await newMember(account, "developer");
    await until(async () => (await account.as("GET", `/api/calls/${callSid}`)).body.call?.answer, "answer on record");
    const allowed = await developer.as("POST", `/api/calls/${callSid}/replay`, {
      body: { onCallStartUrl: shadows.url(`/${account.id}/same`) },
    });
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.body.replay.outcome).toBe("same");
  });
});

describe.concurrent("replaying a past call (docs/decisions.md §23)", () => {
  it("sends the call's call.started again to a URL and compares: different, and failed", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const n = await number(account);
    const { callSid } = await ring(n);
    const before = await until(async () => {
      const res = await account.as("GET", `/api/calls/${callSid}`);
      return res.body.call?.answer === "xml" && res.body.call;
    }, "the call on record");
    const original = primary.received.find((r) => dataOf(r).callSid === callSid)!;

    const res = await account.as("POST", `/api/calls/${callSid}/replay`, {
      body: { onCallStartUrl: shadows.url(`/${account.id}/different`) },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.replay).toMatchObject({
      outcome: "different",
      original: { answer: "xml", twiml: PRIMARY_TWIML },
      replayed: { answer: "xml", twiml: OTHER_TWIML },
    });
    expect(res.body.replay.replayed.latencyMs).toBeGreaterThanOrEqual(0);
    const sent = shadows.received.find((r) => dataOf(r).originalEventId === original.headers["webhook-id"])!;
    const secret = (await account.as("GET", "/api/account")).body.account.webhookSecret;
    const verified = new Webhook(secret).verify(sent.body, sent.headers as Record<string, string>) as {
      data: Record<string, unknown>;
    };
    expect(verified.data).toEqual({
      ...JSON.parse(original.body).data,
      replay: true,
      originalEventId: original.headers["webhook-id"],
    });
    expect(sent.headers["webhook-id"]).not.toBe(original.headers["webhook-id"]);
    expect(sent.headers["webhook-id"]).toBe(res.body.replay.eventId);

    const failed = await account.as("POST", `/api/calls/${callSid}/replay`, {
      body: { onCallStartUrl: shadows.url(`/${account.id}/fail`) },
    });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body.replay).toMatchObject({
      outcome: "failed",
      replayed: { twiml: null, answer: "START_CALLBACK_STATUS" },
    });
    expect(failed.body.replay.replayed.error).toMatch(/500/);

    // The same Idempotency-Key answers the first result again and sends nothing more.
    const key = `replay-${callSid}`;
    const first = await account.as("POST", `/api/calls/${callSid}/replay`, {
      body: { onCallStartUrl: shadows.url(`/${account.id}/same`) },
      headers: { "idempotency-key": key },
    });
    const second = await account.as("POST", `/api/calls/${callSid}/replay`, {
      body: { onCallStartUrl: shadows.url(`/${account.id}/same`) },
      headers: { "idempotency-key": key },
    });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");

    // The call did not change; the replays are in the delivery log, not on its timeline.
    const after = (await account.as("GET", `/api/calls/${callSid}`)).body.call;
    for (const field of ["answer", "status", "error", "billedMinutes", "durationSeconds", "endedAt"])
      expect(after[field], field).toEqual(before[field]);
    const startedTries = (c: { timeline: { type: string }[] }) =>
      c.timeline.filter((e) => e.type === "call.started" || e.type === "twiml");
    expect(startedTries(after)).toEqual(startedTries(before));
    expect(startedTries(after)).toHaveLength(2);
    const log = await account.as("GET", `/api/webhook-deliveries?callSid=${callSid}&kind=replay`);
    expect(log.body.deliveries).toHaveLength(3);
    expect(log.body.deliveries.map((d: { status: string }) => d.status).sort()).toEqual([
      "DELIVERED",
      "DELIVERED",
      "FAILED",
    ]);
    const audit = await account.as("GET", `/api/audit-log?action=call.replayed&targetId=${callSid}`);
    expect(audit.body.entries).toHaveLength(3);
  });

  it("another account's call, an unknown one, an outbound one and one older than 30 days are 404", async () => {
    const owner = await newActiveAccount({ server: "permissive" });
    const n = await number(owner);
    const { callSid } = await ring(n);
    const stranger = await newActiveAccount({ server: "permissive" });
    const body = { onCallStartUrl: shadows.url(`/${stranger.id}/same`) };
    const theirs = await stranger.as("POST", `/api/calls/${callSid}/replay`, { body });
    expect(theirs.status, theirs.text).toBe(404);
    expect(theirs.body.error.code).toBe("NOT_FOUND");
    const unknown = await stranger.as("POST", "/api/calls/CA0000000000000000000000000000dead/replay", { body });
    expect(unknown.status).toBe(404);
    // The owner's own outbound call, and an inbound call older than 30 days (its call.started on record): 404 too.
    const ownBody = { onCallStartUrl: shadows.url(`/${owner.id}/same`) };
    const base = {
      accountId: owner.id,
      phoneNumberId: n.id,
      fromNumber: "+14155550177",
      toNumber: n.number,
      status: "completed",
      statusRank: 10,
      onCallStartUrl: primary.url(`/${owner.id}/start`),
      onCallEndUrl: events.url(`/${owner.id}/end`),
    };
    const outboundSid = `CA${randomBytes(16).toString("hex")}`;
    await seed("permissive").call({ ...base, callSid: outboundSid, direction: "outbound" });
    const oldSid = `CA${randomBytes(16).toString("hex")}`;
    const longAgo = new Date(Date.now() - 31 * 24 * 3600_000);
    await seed("permissive").call({ ...base, callSid: oldSid, createdAt: longAgo });
    for (const sid of [outboundSid, oldSid])
      await seed("permissive").webhookDelivery({
        accountId: owner.id,
        eventId: `evt_old${sid.slice(-12)}`,
        eventType: "call.started",
        callSid: sid,
        url: base.onCallStartUrl,
        payload: JSON.stringify({ id: `evt_old${sid.slice(-12)}`, type: "call.started", data: { callSid: sid } }),
        status: "DELIVERED",
        synchronous: true,
        createdAt: longAgo,
      });
    for (const sid of [outboundSid, oldSid]) {
      const res = await owner.as("POST", `/api/calls/${sid}/replay`, { body: ownBody });
      expect(res.status, `${sid}: ${res.text}`).toBe(404);
    }
    // The owner's own recent inbound call is replayed.
    expect((await owner.as("POST", `/api/calls/${callSid}/replay`, { body: ownBody })).status).toBe(200);
    expect(shadows.received.filter((r) => r.path.startsWith(`/${stranger.id}/`))).toHaveLength(0);
    expect(shadows.received.filter((r) => r.path.startsWith(`/${owner.id}/`))).toHaveLength(1);
  });

  it("the 11th replay in a minute is 429 RATE_LIMITED", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const body = { onCallStartUrl: shadows.url(`/${account.id}/same`) };
    const statuses = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await account.as("POST", `/api/calls/CA${String(i).padStart(32, "0")}/replay`, { body })).status);
    expect(statuses).toEqual(Array(10).fill(404));
    const eleventh = await account.as("POST", "/api/calls/CA0000000000000000000000000000000b/replay", { body });
    expect(eleventh.status, eleventh.text).toBe(429);
    expect(eleventh.body.error.code).toBe("RATE_LIMITED");
  });
});
