import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { baseUrlOf, newAccount, newActiveAccount, numberBody, randomIp } from "./support/api";
import { chunkedRequest, expectEnvelope, rawRequest, rawSocket } from "./support/raw-http";

/**
 * The input boundary (src/server/http/input-boundary.ts): each cause of a 500
 * the outside fuzz run found is now a 4xx in the envelope, on every transport,
 * and no NUL ever reaches PostgreSQL.
 */
const JSON_TYPE = { "content-type": "application/json" };
const FORM_TYPE = { "content-type": "application/x-www-form-urlencoded" };

function serverLogLines(): string[] {
  return readFileSync(inject("serverLog"), "utf8").split("\n").filter(Boolean);
}

describe("NUL never reaches the database", () => {
  it("in a JSON string, escaped or raw, on REST and tRPC", async () => {
    const escaped = await rawRequest("POST", "/api/auth/register", { headers: JSON_TYPE, body: '{"email":"a\\u0000@example.com","password":"long enough pw"}' });
    expectEnvelope(escaped, 400, "VALIDATION_FAILED");
    const raw = await rawRequest("POST", "/api/auth/register", { headers: JSON_TYPE, body: '{"email":"a\u0000@example.com","password":"long enough pw"}' });
    expectEnvelope(raw, 400, "VALIDATION_FAILED");
    const inKey = await rawRequest("POST", "/api/auth/login", { headers: JSON_TYPE, body: '{"\\u0000":1,"email":"a@example.com","password":"x"}' });
    expectEnvelope(inKey, 400, "VALIDATION_FAILED");
    const trpc = await rawRequest("POST", "/api/trpc/auth.register", { headers: JSON_TYPE, body: '{"email":"b\\u0000@example.com","password":"long enough pw"}' });
    expectEnvelope(trpc, 400, "VALIDATION_FAILED");
    const trpcGet = await rawRequest("GET", `/api/trpc/auth.login?input=${encodeURIComponent('{"email":"\\u0000","password":"x"}')}`);
    expectEnvelope(trpcGet, 400, "VALIDATION_FAILED");
  });

  it("in an id, a query value or a form field", async () => {
    const acct = await newActiveAccount();
    const auth = { authorization: `Bearer ${acct.apiKey}` };
    expectEnvelope(await rawRequest("GET", "/api/phone-numbers/%00", { headers: auth }), 400, "VALIDATION_FAILED");
    expectEnvelope(await rawRequest("DELETE", "/api/api-keys/abc%00def", { headers: auth }), 400, "VALIDATION_FAILED");
    expectEnvelope(await rawRequest("GET", "/api/webhook-deliveries?callSid=CA%00", { headers: auth }), 400, "VALIDATION_FAILED");
    expectEnvelope(await rawRequest("PATCH", "/api/phone-numbers/x", { headers: { ...auth, ...JSON_TYPE }, body: '{"onCallStartUrl":"https://a.example.com/\\u0000"}' }), 400, "VALIDATION_FAILED");
    // The engine parses its body as a form whatever type it declares.
    const engine = new URL(acct.engineVoiceUrl).pathname;
    expectEnvelope(await rawRequest("POST", engine, { server: "strict", headers: FORM_TYPE, body: "CallSid=CA%00&From=%2B14155550100&To=%2B14155550101" }), 400, "VALIDATION_FAILED");
    expectEnvelope(await rawRequest("POST", engine, { headers: JSON_TYPE, body: "CallSid=CA1&To=%00" }), 400, "VALIDATION_FAILED");
    // A backslash-escaped backslash before u0000 is text, not NUL: an ordinary validation answer.
    const text = await acct.as("POST", "/api/phone-numbers", { body: numberBody({ phoneNumber: "\\u0000" }) });
    expect(text.status).toBe(400);
    expect(text.body.error.details[0].path).toBe("phoneNumber");
    expect(serverLogLines().filter((l) => l.includes("invalid byte sequence"))).toEqual([]);
  });
});

describe("malformed URLs and methods", () => {
  it("a malformed or non-UTF-8 percent-escape in the path or query is a 400", async () => {
    for (const path of ["/api/%", "/api/%zz", "/api/phone-numbers/%E0%A4%A", "/api/usage?limit=%", "/login?callbackUrl=%FF", "/%"]) {
      expectEnvelope(await rawRequest("GET", path), 400, "VALIDATION_FAILED");
    }
  });

  it("TRACE, CONNECT and unknown methods are 405 with Allow on any path", async () => {
    const acct = await newAccount();
    for (const path of ["/api/account", "/", "/login", "/api/trpc/system.ready", "/docs", new URL(acct.engineVoiceUrl).pathname, "/api/session/csrf"]) {
      const res = await rawRequest("TRACE", path);
      expectEnvelope(res, 405, "METHOD_NOT_ALLOWED");
      expect(res.headers.allow, path).toBeTruthy();
      expect(res.headers.allow).not.toMatch(/TRACE/);
    }
    expectEnvelope(await rawRequest("PROPFIND", "/api/account"), 405, "METHOD_NOT_ALLOWED");
    const connect = await rawSocket("CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n");
    expect(connect).toMatch(/^HTTP\/1\.1 405 /);
    expect(connect).toMatch(/\r\nAllow: GET, HEAD, POST/i);
    expect(connect).toMatch(/"code":"METHOD_NOT_ALLOWED"/);
  });

  it("routes Next.js serves itself answer a missing method in the envelope too", async () => {
    const put = await rawRequest("PUT", "/api/trpc/system.ready");
    expectEnvelope(put, 405, "METHOD_NOT_ALLOWED");
    expect(put.headers.allow).toBe("GET, HEAD, POST");
    const portal = await rawRequest("POST", "/billing/portal/tok");
    expectEnvelope(portal, 405, "METHOD_NOT_ALLOWED");
    expect(portal.headers.allow).toBe("GET, HEAD");
    expectEnvelope(await rawRequest("POST", "/login"), 405, "METHOD_NOT_ALLOWED");
  });

  it("a request Node's parser refuses (a NUL in a header) is answered in the envelope", async () => {
    const answer = await rawSocket("GET /api/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\0b\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/"code":"VALIDATION_FAILED"/);
  });
});

describe("content types", () => {
  it("tRPC takes application/json (parameters allowed), nothing else", async () => {
    const body = JSON.stringify({ email: `t-${randomUUID()}@example.com`, password: "long enough pw" });
    expectEnvelope(await rawRequest("POST", "/api/trpc/auth.register", { headers: { "content-type": "application/jsonx" }, body }), 400, "VALIDATION_FAILED");
    expectEnvelope(await rawRequest("POST", "/api/trpc/auth.register", { headers: { "content-type": "text/plain" }, body }), 400, "VALIDATION_FAILED");
    const ok = await rawRequest("POST", "/api/trpc/auth.register", { headers: { "content-type": "application/json; charset=utf-8" }, body });
    expect(ok.status).toBe(200);
    expect(ok.body.result.data.account.email).toMatch(/^t-/);
  });

  it("JSON to next-auth is a 400, not a 500; the billing portal's buttons take any body", async () => {
    const login = await rawRequest("POST", "/api/session/callback/credentials", { headers: JSON_TYPE, body: '{"email":"a@example.com","password":"x"}' });
    expectEnvelope(login, 400, "VALIDATION_FAILED");
    const acct = await newActiveAccount();
    const portal = await acct.as("POST", "/api/billing/portal");
    const cancel = await rawRequest("POST", new URL(portal.body.url).pathname + "/cancel", { headers: { "content-type": "multipart/form-data; boundary=x" }, body: '{"action":"resume"}' });
    expect(cancel.status).toBe(303);
    expect((await acct.as("GET", "/api/account")).body.account.status).toBe("SUSPENDED");
  });

  it("next-auth: unknown actions, wrong methods and callback URLs it would answer with a 500 are 4xx", async () => {
    expectEnvelope(await rawRequest("GET", "/api/session/nope"), 404, "NOT_FOUND");
    expectEnvelope(await rawRequest("GET", "/api/session/callback/credentials"), 405, "METHOD_NOT_ALLOWED");
    expectEnvelope(await rawRequest("GET", "/api/session/csrf?callbackUrl=javascript:alert(1)"), 400, "VALIDATION_FAILED");
    expectEnvelope(await rawRequest("GET", "/api/session/csrf", { headers: { cookie: "next-auth.callback-url=javascript%3Aalert(1)" } }), 400, "VALIDATION_FAILED");
    const csrf = await rawRequest("GET", "/api/session/csrf");
    expect(csrf.status).toBe(200);
    expect(csrf.body.csrfToken).toBeTruthy();
    // next-auth's own refusal (a wrong password) is in the envelope, beside the `url` its client reads.
    const cookie = String(csrf.headers["set-cookie"]?.map((c) => c.split(";")[0]).join("; "));
    const wrong = await rawRequest("POST", "/api/session/callback/credentials", {
      headers: { ...FORM_TYPE, cookie },
      body: new URLSearchParams({ csrfToken: csrf.body.csrfToken, email: "nobody@example.com", password: "wrong password", json: "true" }).toString(),
    });
    expectEnvelope(wrong, 401, "UNAUTHORIZED");
    expect(wrong.body.error.message).toBe("Invalid email or password.");
    expect(new URL(wrong.body.url).searchParams.get("error")).toBe("Invalid email or password.");
  });
});

describe("tRPC cost", () => {
  const names = (n: number) => Array.from({ length: n }, () => "system.ready").join(",");
  const inputs = (n: number) => encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, null]))));

  it("at most 10 procedures in a batch, GET or POST; 10 still run", async () => {
    const ip = randomIp();
    const ten = await rawRequest("GET", `/api/trpc/${names(10)}?batch=1&input=${inputs(10)}`, { headers: { "x-forwarded-for": ip } });
    expect(ten.status).toBe(200);
    expect(ten.body).toHaveLength(10);
    for (const [n, input] of [[11, `&input=${inputs(11)}`], [600, ""]] as const) {
      const res = await rawRequest("GET", `/api/trpc/${names(n)}?batch=1${input}`);
      expectEnvelope(res, 400, "VALIDATION_FAILED");
      expect(res.body.error.message).toMatch(/at most 10/);
    }
    const post = await rawRequest("POST", `/api/trpc/${names(11)}?batch=1`, { headers: JSON_TYPE, body: "{}" });
    expectEnvelope(post, 400, "VALIDATION_FAILED");
  });

  it("unauthenticated requests are limited per client address", async () => {
    const ip = randomIp();
    const answers = await Promise.all(Array.from({ length: 60 }, () => rawRequest("GET", "/api/trpc/system.health", { headers: { "x-forwarded-for": ip } })));
    const limited = answers.find((a) => a.status === 429);
    expect(limited, "no request was limited").toBeDefined();
    expectEnvelope(limited!, 429, "RATE_LIMITED");
    expect(Number(limited!.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(25);
    // Another address is unaffected.
    expect((await rawRequest("GET", "/api/trpc/system.health")).status).toBe(200);
  });

  it("an unauthenticated call is logged at info, never at error", async () => {
    const requestId = `unauth-${randomUUID()}`;
    const res = await rawRequest("GET", "/api/trpc/account.get", { headers: { "x-request-id": requestId } });
    expect(res.status).toBe(401);
    expect(res.body.error.data.appError.code).toBe("UNAUTHORIZED");
    await new Promise((r) => setTimeout(r, 300));
    const lines = serverLogLines().filter((l) => l.includes(requestId)).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.some((l) => l.level === 30 && l.msg === "dashboard procedure refused")).toBe(true);
  });
});

describe("64 KiB on every transport, declared or streamed", () => {
  const big = 70 * 1024;

  async function expectRefused(path: string, headers: Record<string, string>, server: "strict" | "stripe" = "strict") {
    const declared = await rawRequest("POST", path, { server, headers, body: "x".repeat(big) });
    expectEnvelope(declared, 413, "PAYLOAD_TOO_LARGE");
    expect(declared.headers.connection).toBe("close");
    const streamed = await chunkedRequest("POST", path, big, { server, headers });
    expect(streamed.status, `${path} streamed`).toBe(413);
    expect(streamed.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(streamed.headers.connection).toBe("close");
  }

  it("REST, tRPC, next-auth, the billing pages, the engine and Stripe's webhook", async () => {
    const acct = await newActiveAccount();
    const portal = await acct.as("POST", "/api/billing/portal");
    await expectRefused("/api/api-keys", { ...JSON_TYPE, authorization: `Bearer ${acct.apiKey}` });
    await expectRefused("/api/trpc/auth.register", JSON_TYPE);
    await expectRefused("/api/session/callback/credentials", FORM_TYPE);
    await expectRefused(new URL(portal.body.url).pathname + "/cancel", FORM_TYPE);
    await expectRefused(new URL(acct.checkoutUrl).pathname, FORM_TYPE);
    await expectRefused(new URL(acct.engineVoiceUrl).pathname, FORM_TYPE);
    await expectRefused("/api/webhooks/stripe", { ...JSON_TYPE, "stripe-signature": "t=1,v1=00" }, "stripe");
  });

  it("a body of exactly 64 KiB is read and handed on whole", async () => {
    // A Stripe webhook is verified over its raw bytes: the boundary must hand them on untouched.
    const secret = "whsec_routekit_integration_tests";
    const event = { id: `evt_${randomUUID()}`, object: "event", type: "ping.fuzz", data: { object: {} }, pad: "" };
    const unpadded = Buffer.byteLength(JSON.stringify(event));
    event.pad = "é".repeat(Math.floor((64 * 1024 - unpadded) / 2));
    const payload = JSON.stringify(event);
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(64 * 1024);
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac("sha256", secret).update(`${t}.${payload}`).digest("hex");
    const res = await rawRequest("POST", "/api/webhooks/stripe", { baseUrl: baseUrlOf("stripe"), headers: { ...JSON_TYPE, "stripe-signature": `t=${t},v1=${signature}` }, body: payload });
    expect(res.status, res.text).toBeLessThan(300);
  });
});
