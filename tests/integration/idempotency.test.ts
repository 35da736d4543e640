import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseEnv } from "../../src/server/env";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TwilioSimulator } from "../../src/twilio-simulator/twilio-simulator";
import { pool } from "../../src/server/db/client";
import {
  IDEMPOTENCY_TTL_MS,
  IN_PROGRESS_ABANDONED_MS,
  beginIdempotent,
  completeIdempotent,
  pruneExpiredIdempotencyKeys,
  canonicalJson,
  releaseIdempotent,
  requestHash,
} from "../../src/server/services/idempotency/idempotency";
import { startInProcess } from "../support/in-process";
import { type ApiResponse, randomIp, randomUsNumber } from "../support/api";
import { type SimulatedTwilioServer, startSimulatedTwilioServer } from "../support/simulated-twilio-server";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

// Idempotency-Key (docs/decisions.md §11) end to end: a built server of its own whose Twilio is this file's
// simulator (so outbound calls can be counted where they land), real HTTP, every answer checked
// against the OpenAPI document. The key's expiry is tested in-process, with a clock of the test's own.
const TWILIO_SID = `AC${"7".repeat(32)}`;
const TWILIO_TOKEN = "idempotency-simulator-token";

let setup: SimulatedTwilioServer;
let server: SimulatedTwilioServer["server"];
let twilio: TwilioSimulator;
let db: pg.Pool;
let backend: SimulatedTwilioServer["backend"];
/** How long the backend holds a request to a path ending in /slow. */
const SLOW_MS = 1500;

beforeAll(async () => {
  setup = await startSimulatedTwilioServer({
    name: "it-idempotency",
    database: "idempotency",
    emailTag: "idem",
    simulatorAccounts: { [TWILIO_SID]: TWILIO_TOKEN },
    backendReply: (r, res) => {
      if (r.path.endsWith("/slow")) setTimeout(() => res.end("slow ok"), SLOW_MS);
      else if (r.path.endsWith("/start"))
        res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>Hi</Say></Response>");
      else res.end("ok");
    },
  });
  ({ server, twilio, db, backend } = setup);
});
afterAll(() => setup?.close());

type Answer = ApiResponse;

/** A request with an Idempotency-Key when `key` is given. */
function api(
  method: string,
  path: string,
  { key, ...opts }: { token?: string; body?: unknown; ip?: string; key?: string } = {},
): Promise<Answer> {
  return setup.api(method, path, { ...opts, ...(key !== undefined && { headers: { "idempotency-key": key } }) });
}

type Customer = {
  id: string;
  ip: string;
  apiKey: string;
  as(method: string, path: string, opts?: { body?: unknown; key?: string }): Promise<Answer>;
};

async function customer(): Promise<Customer> {
  const { id, ip, apiKey } = await setup.customer();
  return { id, ip, apiKey, as: (method, path, o = {}) => api(method, path, { token: apiKey, ip, ...o }) };
}

const newKey = () => `key-${randomBytes(8).toString("hex")}`;

describe("Idempotency-Key", () => {
  it("the same key and body replay the first answer (status, body, idempotent-replayed) and do nothing again", async () => {
    const c = await customer();
    const key = newKey();
    const first = await c.as("POST", "/api/api-keys", { key, body: { label: "ci" } });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await c.as("POST", "/api/api-keys", { key, body: { label: "ci" } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");

    const keys = await c.as("GET", "/api/api-keys");
    expect(keys.body.apiKeys.filter((k: { label: string | null }) => k.label === "ci")).toHaveLength(1);
    // Without a key, nothing is deduplicated.
    await c.as("POST", "/api/api-keys", { body: { label: "ci" } });
    expect(
      (await c.as("GET", "/api/api-keys")).body.apiKeys.filter((k: { label: string | null }) => k.label === "ci"),
    ).toHaveLength(2);
  });

  it("the stored answer is sealed at rest: a key shown once is not readable in the table", async () => {
    const c = await customer();
    const key = newKey();
    const created = await c.as("POST", "/api/api-keys", { key, body: { label: "sealed" } });
    const { rows } = await db.query(
      `SELECT "state", "responseStatus", "responseBody" FROM "IdempotencyKey" WHERE "scope" = $1 AND "key" = $2`,
      [`account:${c.id}`, key],
    );
    expect(rows[0]).toMatchObject({ state: "DONE", responseStatus: 200 });
    expect(rows[0].responseBody).not.toContain(created.body.key);
  });

  it("register and login with a key store nothing that gives back the password, the token or the API key (docs/decisions.md §20)", async () => {
    const ip = randomIp();
    const password = `pw-${randomBytes(6).toString("hex")}`;
    const body = { email: `idem-hash-${randomBytes(6).toString("hex")}@example.com`, password };
    const registered = await api("POST", "/api/auth/register", { ip, key: newKey(), body });
    expect(registered.status).toBe(201);
    const loginKey = newKey();
    const login = await api("POST", "/api/auth/login", { ip, key: loginKey, body });
    expect(login.status).toBe(200);
    const { rows } = await db.query(
      `SELECT "key", "requestHash", "responseBody" FROM "IdempotencyKey" WHERE "scope" = $1`,
      [`ip:${ip}`],
    );
    expect(rows).toHaveLength(2);
    // A dictionary attack as the report ran it: the unkeyed digest of every candidate body, the true password among them.
    const candidates = ["123456", "password", password, "correct horse battery"];
    const unkeyed = new Set(
      ["auth.register", "auth.login"].flatMap((op) =>
        candidates.map((pw) =>
          createHash("sha256")
            .update(op)
            .update("\n")
            .update(canonicalJson({ ...body, password: pw }))
            .digest("hex"),
        ),
      ),
    );
    // The server's key, derived from its AUTH_SECRET as every instance derives it: the hash is the keyed one.
    const serverKey = parseEnv(
      { AUTH_SECRET: TEST_AUTH_SECRET, DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-idem-")) },
      { persistSecrets: false },
    ).idempotencyHashKey;
    for (const row of rows) {
      expect(unkeyed.has(row.requestHash)).toBe(false);
      const op = row.key === loginKey ? "auth.login" : "auth.register";
      expect(row.requestHash).toBe(requestHash(op, body, serverKey));
      expect(row.requestHash).not.toBe(requestHash(op, body, randomBytes(32)));
      // The answers are sealed: neither the password, the token nor the API key reads in the table.
      for (const secret of [password, login.body.token, registered.body.apiKey, registered.body.token].filter(Boolean))
        expect(row.responseBody).not.toContain(secret);
      expect(row.responseBody).toMatch(/^v1\./);
    }
    // Sealed, not lost: a retry of the login still gets its token back.
    const again = await api("POST", "/api/auth/login", { ip, key: loginKey, body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(login.body);
  });

  it("2,500 levels of nested JSON with a key → 400 VALIDATION_FAILED, as without the key", async () => {
    const c = await customer();
    // The label must be a string: the schema refuses this body, once hashing it has not overflowed the stack.
    const deep = `{"label":${'{"a":'.repeat(2500)}1${"}".repeat(2500)}}`;
    for (const key of [newKey(), undefined]) {
      const headers: Record<string, string> = {
        "x-forwarded-for": c.ip,
        "content-type": "application/json",
        authorization: `Bearer ${c.apiKey}`,
      };
      if (key) headers["idempotency-key"] = key;
      const res = await fetch(`${server.baseUrl}/api/api-keys`, { method: "POST", headers, body: deep });
      const answer = await res.json();
      expect(res.status, `key ${key ?? "none"}`).toBe(400);
      expect(answer.error.code).toBe("VALIDATION_FAILED");
    }
  });

  it("the same key with another body → 422 IDEMPOTENCY_KEY_REUSED, and the first answer still replays", async () => {
    const c = await customer();
    const key = newKey();
    const first = await c.as("POST", "/api/api-keys", { key, body: { label: "one" } });
    const other = await c.as("POST", "/api/api-keys", { key, body: { label: "two" } });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    // Another endpoint with the same key is another request too.
    expect((await c.as("POST", "/api/account/webhook-secret", { key, body: {} })).status).toBe(422);
    const again = await c.as("POST", "/api/api-keys", { key, body: { label: "one" } });
    expect(again.body).toEqual(first.body);
    expect(
      (await c.as("GET", "/api/api-keys")).body.apiKeys.filter((k: { label: string | null }) => k.label === "two"),
    ).toHaveLength(0);
  });

  it("while the first request still runs → 409 IDEMPOTENCY_IN_PROGRESS; afterwards the answer replays; the event was sent once", async () => {
    const c = await customer();
    const tag = c.id;
    const number = await c.as("POST", "/api/phone-numbers", {
      body: {
        phoneNumber: randomUsNumber(),
        onCallStartUrl: backend.url(`/${tag}/start`),
        onCallEndUrl: backend.url(`/${tag}/slow`),
      },
    });
    expect(number.status).toBe(201);
    const key = newKey();
    const body = { phoneNumberId: number.body.phoneNumber.id, type: "call.ended" };
    const slow = c.as("POST", "/api/webhook-deliveries/test", { key, body });
    await new Promise((r) => setTimeout(r, SLOW_MS / 3));
    const during = await c.as("POST", "/api/webhook-deliveries/test", { key, body });
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe("IDEMPOTENCY_IN_PROGRESS");
    const first = await slow;
    expect(first.status).toBe(200);
    // Key order in the body does not make another request.
    const after = await c.as("POST", "/api/webhook-deliveries/test", {
      key,
      body: { type: body.type, phoneNumberId: body.phoneNumberId },
    });
    expect(after.status).toBe(200);
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(after.body).toEqual(first.body);
    expect(backend.received.filter((r) => r.path === `/${tag}/slow`)).toHaveLength(1);
  });

  it("a 4xx is stored and replayed; a key that fails validation is 400", async () => {
    const c = await customer();
    const key = newKey();
    const missing = await c.as("POST", "/api/webhook-deliveries/test", {
      key,
      body: { phoneNumberId: "nope", type: "call.ended" },
    });
    expect(missing.status).toBe(404);
    const replay = await c.as("POST", "/api/webhook-deliveries/test", {
      key,
      body: { phoneNumberId: "nope", type: "call.ended" },
    });
    expect(replay.status).toBe(404);
    expect(replay.body).toEqual(missing.body);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");

    for (const bad of ["k".repeat(256), "tab\there"]) {
      const res = await c.as("POST", "/api/api-keys", { key: bad, body: { label: "bad key" } });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ code: "VALIDATION_FAILED", details: [{ path: "Idempotency-Key" }] });
    }
    expect((await c.as("POST", "/api/api-keys", { key: "k".repeat(255), body: { label: "long key" } })).status).toBe(
      201,
    );
    expect(
      (await c.as("GET", "/api/api-keys")).body.apiKeys.filter((k: { label: string | null }) => k.label === "bad key"),
    ).toHaveLength(0);
  });

  it("keys are never shared between accounts", async () => {
    const a = await customer();
    const b = await customer();
    const key = newKey();
    const fromA = await a.as("POST", "/api/api-keys", { key, body: { label: "shared" } });
    const fromB = await b.as("POST", "/api/api-keys", { key, body: { label: "shared" } });
    expect(fromB.status).toBe(201);
    expect(fromB.headers.get("idempotent-replayed")).toBeNull();
    expect(fromB.body.id).not.toBe(fromA.body.id);
    // And B's other body under the same key is no conflict with A's.
    expect((await b.as("POST", "/api/api-keys", { key: `b-${key}`, body: { label: "other" } })).status).toBe(201);
  });

  it("register is keyed per client address: a retry replays the account, another address runs it (and finds the email taken)", async () => {
    const ip = randomIp();
    const key = newKey();
    const body = { email: `idem-reg-${randomBytes(6).toString("hex")}@example.com`, password: "correct horse battery" };
    const first = await api("POST", "/api/auth/register", { ip, key, body });
    expect(first.status).toBe(201);
    const again = await api("POST", "/api/auth/register", { ip, key, body });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.account.id).toBe(first.body.account.id);
    const elsewhere = await api("POST", "/api/auth/register", { ip: randomIp(), key, body });
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error.code).toBe("EMAIL_TAKEN");
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Account" WHERE email = $1`, [body.email]);
    expect(rows[0].n).toBe(1);
  });

  it("a retried POST /api/outbound places one call at Twilio", async () => {
    const c = await customer();
    const from = randomUsNumber();
    const number = await c.as("POST", "/api/phone-numbers", {
      body: {
        phoneNumber: from,
        onCallStartUrl: backend.url(`/${c.id}/start`),
        onCallEndUrl: backend.url(`/${c.id}/end`),
      },
    });
    expect(number.status).toBe(201);
    const before = twilio.calls.length;
    const key = newKey();
    const body = {
      to: "+14155550177",
      from,
      onCallStartUrl: backend.url(`/${c.id}/start`),
      onCallEndUrl: backend.url(`/${c.id}/end`),
      providerAccountSid: TWILIO_SID,
      providerAuthToken: TWILIO_TOKEN,
    };
    const first = await c.as("POST", "/api/outbound", { key, body });
    expect(first.status).toBe(201);
    // The client lost the answer and retries, twice at once.
    const retries = await Promise.all([
      c.as("POST", "/api/outbound", { key, body }),
      c.as("POST", "/api/outbound", { key, body }),
    ]);
    for (const r of retries) {
      expect(r.status).toBe(201);
      expect(r.body).toEqual(first.body);
      expect(r.headers.get("idempotent-replayed")).toBe("true");
    }
    expect(twilio.calls.length - before).toBe(1);
    expect(twilio.calls.filter((x) => x.callSid === first.body.callSid)).toHaveLength(1);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Call" WHERE "accountId" = $1`, [c.id]);
    expect(rows[0].n).toBe(1);
  });

  it("a GET ignores the header", async () => {
    const c = await customer();
    const res = await c.as("GET", "/api/account", { key: "tab\there" });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("the key store, in-process with the test's clock", () => {
  let inProcess: Awaited<ReturnType<typeof startInProcess>>;
  beforeAll(async () => {
    inProcess = await startInProcess();
  });
  afterAll(async () => {
    await inProcess.stop();
  });

  const claimOf = () => ({ scope: `account:test-${randomBytes(4).toString("hex")}`, key: newKey() });

  it("replays for 24 hours, then the key runs again", async () => {
    const claim = claimOf();
    const hash = requestHash("apiKeys.create", { label: "x" });
    const t0 = new Date("2026-11-20T10:00:00.000Z");
    expect(await beginIdempotent({ ...claim, requestHash: hash, now: t0 })).toEqual({ kind: "started" });
    await completeIdempotent({ ...claim, answer: { status: 200, body: { id: "first" } } });
    const justBefore = new Date(t0.getTime() + IDEMPOTENCY_TTL_MS - 1);
    expect(await beginIdempotent({ ...claim, requestHash: hash, now: justBefore })).toEqual({
      kind: "replay",
      answer: { status: 200, body: { id: "first" } },
    });
    // Another body is still refused until then.
    await expect(
      beginIdempotent({ ...claim, requestHash: requestHash("apiKeys.create", { label: "y" }), now: justBefore }),
    ).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    const expired = new Date(t0.getTime() + IDEMPOTENCY_TTL_MS);
    expect(
      await beginIdempotent({ ...claim, requestHash: requestHash("apiKeys.create", { label: "y" }), now: expired }),
    ).toEqual({ kind: "started" });
  });

  it("an in-progress key is 409 until released (5xx) or abandoned by a dead instance", async () => {
    const claim = claimOf();
    const hash = requestHash("outbound.create", { to: "+14155550177" });
    const t0 = new Date("2026-11-20T10:00:00.000Z");
    expect((await beginIdempotent({ ...claim, requestHash: hash, now: t0 })).kind).toBe("started");
    await expect(beginIdempotent({ ...claim, requestHash: hash, now: t0 })).rejects.toMatchObject({
      code: "IDEMPOTENCY_IN_PROGRESS",
    });
    await releaseIdempotent(claim);
    expect((await beginIdempotent({ ...claim, requestHash: hash, now: t0 })).kind).toBe("started");
    await expect(
      beginIdempotent({ ...claim, requestHash: hash, now: new Date(t0.getTime() + IN_PROGRESS_ABANDONED_MS - 1) }),
    ).rejects.toMatchObject({ code: "IDEMPOTENCY_IN_PROGRESS" });
    expect(
      (await beginIdempotent({ ...claim, requestHash: hash, now: new Date(t0.getTime() + IN_PROGRESS_ABANDONED_MS) }))
        .kind,
    ).toBe("started");
  });

  it("of many concurrent claims exactly one runs", async () => {
    const claim = claimOf();
    const hash = requestHash("outbound.create", {});
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => beginIdempotent({ ...claim, requestHash: hash })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "IDEMPOTENCY_IN_PROGRESS" });
  });

  it("expired keys are pruned", async () => {
    const claim = claimOf();
    const t0 = new Date("2020-01-01T00:00:00.000Z");
    await beginIdempotent({ ...claim, requestHash: "h", now: t0 });
    await completeIdempotent({ ...claim, answer: { status: 200, body: null } });
    expect(await pruneExpiredIdempotencyKeys(new Date(t0.getTime() + IDEMPOTENCY_TTL_MS))).toBeGreaterThanOrEqual(1);
    const { rows } = await pool().query(`SELECT 1 FROM "IdempotencyKey" WHERE "scope" = $1 AND "key" = $2`, [
      claim.scope,
      claim.key,
    ]);
    expect(rows).toHaveLength(0);
  });
});
