import { createHmac, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { baseUrlOf, newAccount, newActiveAccount, numberBody, randomIp } from "../support/api";
import { chunkedRequest, expectEnvelope, rawRequest, rawSocket } from "../support/raw-http";

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
    const escaped = await rawRequest("POST", "/api/auth/register", {
      headers: JSON_TYPE,
      body: '{"email":"a\\u0000@example.com","password":"long enough pw"}',
    });
    expectEnvelope(escaped, 400, "VALIDATION_FAILED");
    const raw = await rawRequest("POST", "/api/auth/register", {
      headers: JSON_TYPE,
      body: '{"email":"a\u0000@example.com","password":"long enough pw"}',
    });
    expectEnvelope(raw, 400, "VALIDATION_FAILED");
    const inKey = await rawRequest("POST", "/api/auth/login", {
      headers: JSON_TYPE,
      body: '{"\\u0000":1,"email":"a@example.com","password":"x"}',
    });
    expectEnvelope(inKey, 400, "VALIDATION_FAILED");
    const trpc = await rawRequest("POST", "/api/trpc/auth.register", {
      headers: JSON_TYPE,
      body: '{"email":"b\\u0000@example.com","password":"long enough pw"}',
    });
    expectEnvelope(trpc, 400, "VALIDATION_FAILED");
    const trpcGet = await rawRequest(
      "GET",
      `/api/trpc/auth.login?input=${encodeURIComponent('{"email":"\\u0000","password":"x"}')}`,
    );
    expectEnvelope(trpcGet, 400, "VALIDATION_FAILED");
  });

  it("in an id, a query value or a form field", async () => {
    const acct = await newActiveAccount();
    const auth = { authorization: `Bearer ${acct.apiKey}` };
    expectEnvelope(await rawRequest("GET", "/api/phone-numbers/%00", { headers: auth }), 400, "VALIDATION_FAILED");
    expectEnvelope(await rawRequest("DELETE", "/api/api-keys/abc%00def", { headers: auth }), 400, "VALIDATION_FAILED");
    expectEnvelope(
      await rawRequest("GET", "/api/webhook-deliveries?callSid=CA%00", { headers: auth }),
      400,
      "VALIDATION_FAILED",
    );
    expectEnvelope(
      await rawRequest("PATCH", "/api/phone-numbers/x", {
        headers: { ...auth, ...JSON_TYPE },
        body: '{"onCallStartUrl":"https://a.example.com/\\u0000"}',
      }),
      400,
      "VALIDATION_FAILED",
    );
    // The engine parses its body as a form whatever type it declares.
    const engine = new URL(acct.engineVoiceUrl).pathname;
    expectEnvelope(
      await rawRequest("POST", engine, {
        server: "strict",
        headers: FORM_TYPE,
        body: "CallSid=CA%00&From=%2B14155550100&To=%2B14155550101",
      }),
      400,
      "VALIDATION_FAILED",
    );
    expectEnvelope(
      await rawRequest("POST", engine, { headers: JSON_TYPE, body: "CallSid=CA1&To=%00" }),
      400,
      "VALIDATION_FAILED",
    );
    // A backslash-escaped backslash before u0000 is text, not NUL: an ordinary validation answer.
    const text = await acct.as("POST", "/api/phone-numbers", { body: numberBody({ phoneNumber: "\\u0000" }) });
    expect(text.status).toBe(400);
    expect(text.body.error.details[0].path).toBe("phoneNumber");
    expect(serverLogLines().filter((l) => l.includes("invalid byte sequence"))).toEqual([]);
  });
});

describe("malformed URLs and methods", () => {
  it("a malformed or non-UTF-8 percent-escape in the path or query is a 400", async () => {
    for (const path of [
      "/api/%",
      "/api/%zz",
      "/api/phone-numbers/%E0%A4%A",
      "/api/usage?limit=%",
      "/login?callbackUrl=%FF",
      "/%",
    ]) {
      expectEnvelope(await rawRequest("GET", path), 400, "VALIDATION_FAILED");
    }
  });

  it("TRACE, CONNECT and unknown methods are 405 with Allow on any path", async () => {
    const acct = await newAccount();
    for (const path of [
      "/api/account",
      "/",
      "/login",
      "/api/trpc/system.ready",
      "/docs",
      new URL(acct.engineVoiceUrl).pathname,
      "/api/session/csrf",
    ]) {
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

  /** Status, lower-cased headers and body of one raw answer. */
  const parseRaw = (answer: string) => {
    const [head, ...rest] = answer.split("\r\n\r\n");
    const lines = head!.split("\r\n");
    const headers = Object.fromEntries(
      lines.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
    );
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0]!)?.[1] ?? 0), headers, body: rest.join("\r\n\r\n") };
  };
  const expectSecurityHeaders = (headers: Record<string, string>, what: string) => {
    expect(headers["x-content-type-options"], what).toBe("nosniff");
    expect(headers["x-frame-options"], what).toBe("DENY");
    expect(headers["referrer-policy"], what).toBe("strict-origin-when-cross-origin");
    expect(headers["content-security-policy"], what).toMatch(/^default-src 'none'/);
    expect(headers["x-request-id"], what).toMatch(/^[0-9a-f-]{36}$/);
  };

  it("answers the parser's refusals, written raw to the socket, with the security headers and the envelope (issue #22 §15)", async () => {
    for (const text of [
      "GET /api/account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\0b\r\n\r\n",
      "GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
      "BREW /api/health HTTP/1.1\r\nHost: x\r\n\r\n",
      "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",
    ]) {
      const answer = parseRaw(await rawSocket(text));
      expect(answer.status, JSON.stringify(text)).toBe(400);
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body.slice(answer.body.indexOf("{"), answer.body.lastIndexOf("}") + 1)).error.code).toBe(
        "VALIDATION_FAILED",
      );
      expectSecurityHeaders(answer.headers, JSON.stringify(text));
    }
    const connect = parseRaw(await rawSocket("CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n"));
    expect(connect.status).toBe(405);
    expectSecurityHeaders(connect.headers, "CONNECT");
  });

  it("a request target that is not a path (GET *, HEAD *, GET *x) is a 400 in the envelope, with the security headers (issue #22 §8)", async () => {
    for (const line of ["GET *", "HEAD *", "GET *x", "OPTIONS *", "GET api/account"]) {
      const answer = parseRaw(await rawSocket(`${line} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      expect(answer.status, line).toBe(400);
      expectSecurityHeaders(answer.headers, line);
      // The body may come chunked: the envelope is the one JSON object in it.
      if (!line.startsWith("HEAD"))
        expect(
          JSON.parse(answer.body.slice(answer.body.indexOf("{"), answer.body.lastIndexOf("}") + 1)).error.code,
          line,
        ).toBe("VALIDATION_FAILED");
    }
    // Nothing of it reaches the log as a failure.
    expect(serverLogLines().filter((l) => /"level":(50|60)\b/.test(l) && /Invalid URL|\*x/.test(l))).toEqual([]);
  });
});

describe("times PostgreSQL cannot store (issue #22 §8)", () => {
  const cursorAt = (time: string) => Buffer.from(`${time}|cabc`, "utf8").toString("base64url");
  it("since, until and cursors outside 1970–9999 on calls and usage are 400 VALIDATION_FAILED", async () => {
    const acct = await newActiveAccount();
    const auth = { authorization: `Bearer ${acct.apiKey}` };
    const paths = [
      "/api/calls?since=0000-01-01T00:00:00Z",
      "/api/calls?until=0000-01-01T00:00:00Z",
      "/api/calls?since=1969-12-31T23:59:59Z",
      `/api/calls?cursor=${cursorAt(new Date(-8.64e15).toISOString())}`,
      `/api/calls?cursor=${cursorAt("-004714-11-24T00:00:00.000Z")}`,
      `/api/usage?cursor=${cursorAt(new Date(-8.64e15).toISOString())}`,
      `/api/usage?cursor=${cursorAt("-004714-11-24T00:00:00.000Z")}`,
      `/api/usage?cursor=${cursorAt("+275760-09-13T00:00:00.000Z")}`,
    ];
    for (const path of paths)
      expectEnvelope(await rawRequest("GET", path, { headers: auth }), 400, "VALIDATION_FAILED");
    // The bounds themselves are fine.
    expect(
      (await rawRequest("GET", "/api/calls?since=1970-01-01T00:00:00Z&until=9999-12-31T23:59:59Z", { headers: auth }))
        .status,
    ).toBe(200);
  });
});

describe("content types", () => {
  it("tRPC takes application/json (parameters allowed), nothing else", async () => {
    const body = JSON.stringify({ email: `t-${randomUUID()}@example.com`, password: "long enough pw" });
    expectEnvelope(
      await rawRequest("POST", "/api/trpc/auth.register", { headers: { "content-type": "application/jsonx" }, body }),
      400,
      "VALIDATION_FAILED",
    );
    expectEnvelope(
      await rawRequest("POST", "/api/trpc/auth.register", { headers: { "content-type": "text/plain" }, body }),
      400,
      "VALIDATION_FAILED",
    );
    const ok = await rawRequest("POST", "/api/trpc/auth.register", {
      headers: { "content-type": "application/json; charset=utf-8" },
      body,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.result.data.account.email).toMatch(/^t-/);
  });

  it("JSON to next-auth is a 400, not a 500; the billing portal's buttons take any body", async () => {
    const login = await rawRequest("POST", "/api/session/callback/credentials", {
      headers: JSON_TYPE,
      body: '{"email":"a@example.com","password":"x"}',
    });
    expectEnvelope(login, 400, "VALIDATION_FAILED");
    const acct = await newActiveAccount();
    const portal = await acct.as("POST", "/api/billing/portal");
    const cancel = await rawRequest("POST", `${new URL(portal.body.url).pathname}/cancel`, {
      headers: { "content-type": "multipart/form-data; boundary=x" },
      body: '{"action":"resume"}',
    });
    expect(cancel.status).toBe(303);
    expect((await acct.as("GET", "/api/account")).body.account.status).toBe("SUSPENDED");
  });

  it("next-auth: unknown actions, wrong methods and callback URLs it would answer with a 500 are 4xx", async () => {
    expectEnvelope(await rawRequest("GET", "/api/session/nope"), 404, "NOT_FOUND");
    expectEnvelope(await rawRequest("GET", "/api/session/callback/credentials"), 405, "METHOD_NOT_ALLOWED");
    expectEnvelope(
      await rawRequest("GET", "/api/session/csrf?callbackUrl=javascript:alert(1)"),
      400,
      "VALIDATION_FAILED",
    );
    expectEnvelope(
      await rawRequest("GET", "/api/session/csrf", {
        headers: { cookie: "next-auth.callback-url=javascript%3Aalert(1)" },
      }),
      400,
      "VALIDATION_FAILED",
    );
    const csrf = await rawRequest("GET", "/api/session/csrf");
    expect(csrf.status).toBe(200);
    expect(csrf.body.csrfToken).toBeTruthy();
    // next-auth's own refusal (a wrong password) is in the envelope, beside the `url` its client reads.
    const cookie = String(csrf.headers["set-cookie"]?.map((c) => c.split(";")[0]).join("; "));
    const wrong = await rawRequest("POST", "/api/session/callback/credentials", {
      headers: { ...FORM_TYPE, cookie },
      body: new URLSearchParams({
        csrfToken: csrf.body.csrfToken,
        email: "nobody@example.com",
        password: "wrong password",
        json: "true",
      }).toString(),
    });
    expectEnvelope(wrong, 401, "UNAUTHORIZED");
    expect(wrong.body.error.message).toBe("Invalid email or password.");
    expect(new URL(wrong.body.url).searchParams.get("error")).toBe("Invalid email or password.");
  });
});

describe("tRPC cost", () => {
  const names = (n: number) => Array.from({ length: n }, () => "system.ready").join(",");
  const inputs = (n: number) =>
    encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, null]))));

  it("at most 10 procedures in a batch, GET or POST; 10 still run", async () => {
    const ip = randomIp();
    const ten = await rawRequest("GET", `/api/trpc/${names(10)}?batch=1&input=${inputs(10)}`, {
      headers: { "x-forwarded-for": ip },
    });
    expect(ten.status).toBe(200);
    expect(ten.body).toHaveLength(10);
    for (const [n, input] of [
      [11, `&input=${inputs(11)}`],
      [600, ""],
    ] as const) {
      const res = await rawRequest("GET", `/api/trpc/${names(n)}?batch=1${input}`);
      expectEnvelope(res, 400, "VALIDATION_FAILED");
      expect(res.body.error.message).toMatch(/at most 10/);
    }
    const post = await rawRequest("POST", `/api/trpc/${names(11)}?batch=1`, { headers: JSON_TYPE, body: "{}" });
    expectEnvelope(post, 400, "VALIDATION_FAILED");
  });

  it("unauthenticated requests are limited per client address", async () => {
    const ip = randomIp();
    const answers = await Promise.all(
      Array.from({ length: 60 }, () =>
        rawRequest("GET", "/api/trpc/system.health", { headers: { "x-forwarded-for": ip } }),
      ),
    );
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
    const lines = serverLogLines()
      .filter((l) => l.includes(requestId))
      .map((l) => JSON.parse(l) as { level: number; msg: string });
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
    await expectRefused(`${new URL(portal.body.url).pathname}/cancel`, FORM_TYPE);
    await expectRefused(new URL(acct.checkoutUrl).pathname, FORM_TYPE);
    await expectRefused(new URL(acct.engineVoiceUrl).pathname, FORM_TYPE);
    await expectRefused("/api/webhooks/stripe", { ...JSON_TYPE, "stripe-signature": "t=1,v1=00" }, "stripe");
  });

  it("a body of exactly 64 KiB is read and handed on whole", async () => {
    // A Stripe webhook is verified over its raw bytes: the boundary must hand them on untouched.
    const secret = "whsec_routekit_integration_tests";
    // A sound envelope (Stripe's events always carry `created`): a malformed one is refused whatever its size.
    const event = {
      id: `evt_${randomUUID()}`,
      object: "event",
      type: "ping.fuzz",
      created: Math.floor(Date.now() / 1000),
      data: { object: {} },
      pad: "",
    };
    const unpadded = Buffer.byteLength(JSON.stringify(event));
    event.pad = "é".repeat(Math.floor((64 * 1024 - unpadded) / 2));
    const payload = JSON.stringify(event);
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(64 * 1024);
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac("sha256", secret).update(`${t}.${payload}`).digest("hex");
    const res = await rawRequest("POST", "/api/webhooks/stripe", {
      baseUrl: baseUrlOf("stripe"),
      headers: { ...JSON_TYPE, "stripe-signature": `t=${t},v1=${signature}` },
      body: payload,
    });
    expect(res.status, res.text).toBeLessThan(300);
  });
});
