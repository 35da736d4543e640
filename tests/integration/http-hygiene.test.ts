import { describe, expect, inject, it } from "vitest";
import { siblingDatabase, startBuiltServer } from "../../scripts/built-server";
import { baseUrlOf, call, newAccount, type ApiResponse } from "../support/api";
import { rawRequest, rawSocket } from "../support/raw-http";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

describe("HTTP hygiene", () => {
  it("health and readiness", async () => {
    const health = await call("GET", "/api/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok" });
    const ready = await call("GET", "/api/ready");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: "ready",
      checks: { database: "ok", journal: "ok" },
      journal: { writable: true, depth: 0 },
    });
  });

  it("x-request-id on every response, API, page and error alike; a sane incoming id is kept", async () => {
    for (const path of ["/api/health", "/api/nope", "/"]) {
      const res = await call("GET", path);
      expect(res.headers.get("x-request-id"), path).toMatch(/^[0-9a-f-]{36}$/);
    }
    const traced = await call("GET", "/api/health", { headers: { "x-request-id": "trace-123" } });
    expect(traced.headers.get("x-request-id")).toBe("trace-123");
    const junk = await call("GET", "/api/health", { headers: { "x-request-id": "bad id with spaces" } });
    expect(junk.headers.get("x-request-id")).not.toBe("bad id with spaces");
  });

  it("/favicon.ico, which browsers ask for by habit, leads to the icon", async () => {
    const res = await fetch(`${baseUrlOf()}/favicon.ico`, { redirect: "manual" });
    expect(res.status).toBe(308);
    expect(res.headers.get("location")).toBe("/icon.svg");
    await res.arrayBuffer();
    const icon = await call("GET", "/icon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toContain("image/svg+xml");
  });

  it("JSON 404 for unknown /api paths", async () => {
    for (const path of ["/api/nope", "/api/api-keys/x/y", "/api"]) {
      const res = await call("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
  });

  it("405 with Allow for a wrong method on a known path", async () => {
    const res = await call("PUT", "/api/account");
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe("METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET");
    const keys = await call("PATCH", "/api/api-keys");
    expect(keys.headers.get("allow")).toBe("POST, GET");
  });

  it("413 over 64 KiB, declared or streamed", async () => {
    const acct = await newAccount();
    const big = JSON.stringify({ label: "x".repeat(70 * 1024) });
    const res = await acct.as("POST", "/api/api-keys", { rawBody: big });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    const chunked = await fetch(`${(await import("vitest")).inject("baseUrl")}/api/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${acct.apiKey}`, "content-type": "application/json" },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 80; i++) c.enqueue(new TextEncoder().encode("x".repeat(1024)));
          c.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    // The unread rest of the body poisons the connection: the server must close it.
    expect(chunked.headers.get("connection")).toBe("close");
    expect((await acct.as("GET", "/api/api-keys")).body.apiKeys).toHaveLength(1);
  });

  it("400 VALIDATION_FAILED with details for malformed JSON or a non-object body", async () => {
    const res = await call("POST", "/api/auth/register", { rawBody: '{"email": "a@b.co", ' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(res.body.error.details[0].path).toBe("(body)");
    const arr = await call("POST", "/api/auth/register", { rawBody: "[1,2]" });
    expect(arr.status).toBe(400);
    expect(arr.body.error.details[0].message).toMatch(/object/);
  });

  it("the API rate limit answers 429 with Retry-After past a burst of 100 at 50 a second", async () => {
    const acct = await newAccount();
    const started = Date.now();
    let allowed = 0;
    let limited: ApiResponse | undefined;
    // Batches until the bucket runs dry: independent of how fast this machine serves requests.
    for (let sent = 0; !limited && sent < 3000; sent += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => acct.as("GET", "/api/api-keys")));
      allowed += batch.filter((r) => r.status === 200).length;
      limited = batch.find((r) => r.status === 429);
    }
    const elapsed = (Date.now() - started) / 1000;
    expect(limited, "no request was rate-limited").toBeDefined();
    expect(limited!.body.error.code).toBe("RATE_LIMITED");
    expect(limited!.headers.get("retry-after")).toBe("1");
    expect(allowed).toBeGreaterThanOrEqual(100);
    expect(allowed).toBeLessThanOrEqual(100 + 50 * elapsed + 50);
    // Another account is unaffected.
    const other = await newAccount();
    expect((await other.as("GET", "/api/api-keys")).status).toBe(200);
  });

  it("security headers on every answer: API, error, page, /docs; a page's CSP carries a fresh nonce its scripts use", async () => {
    for (const path of ["/api/health", "/api/nope", "/login", "/docs", "/docs/scalar.js", "/api/openapi.json"]) {
      const res = await rawRequest("GET", path);
      expect(res.headers["x-frame-options"], path).toBe("DENY");
      expect(res.headers["x-content-type-options"], path).toBe("nosniff");
      expect(res.headers["referrer-policy"], path).toBe("strict-origin-when-cross-origin");
      expect(res.headers["content-security-policy"], path).toMatch(/frame-ancestors 'none'/);
      // Plain http: no HSTS.
      expect(res.headers["strict-transport-security"], path).toBeUndefined();
    }
    expect((await rawRequest("GET", "/api/health")).headers["content-security-policy"]).toMatch(/^default-src 'none'/);
    const pages = await Promise.all([rawRequest("GET", "/login"), rawRequest("GET", "/login")]);
    const nonces = pages.map(
      (p) =>
        /script-src 'self' 'nonce-([^']+)' 'strict-dynamic'/.exec(String(p.headers["content-security-policy"]))?.[1],
    );
    expect(nonces[0]).toBeTruthy();
    expect(nonces[0]).not.toBe(nonces[1]);
    const scripts = [...pages[0]!.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonces[0]}"`);
    expect(String(pages[0]!.headers["content-security-policy"])).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
    // The dashboard still sends a browser without a session to log in.
    const dashboard = await rawRequest("GET", "/dashboard/numbers");
    expect(dashboard.status).toBe(307);
    expect(dashboard.headers.location).toMatch(/^\/login\?callbackUrl=%2Fdashboard%2Fnumbers/);
    expect(dashboard.headers["x-frame-options"]).toBe("DENY");
  });

  it("HSTS only when PUBLIC_BASE_URL is https", async () => {
    const server = await startBuiltServer({
      name: "it-hsts",
      env: {
        AUTH_SECRET: TEST_AUTH_SECRET,
        PUBLIC_BASE_URL: "https://routekit.example.com",
        DATABASE_URL: inject("embedded") ? undefined : await siblingDatabase(inject("databaseUrl"), "hsts"),
      },
    });
    try {
      for (const path of ["/api/health", "/login", "/api/nope"]) {
        const res = await rawRequest("GET", path, { baseUrl: server.baseUrl });
        expect(res.headers["strict-transport-security"], path).toMatch(/^max-age=31536000; includeSubDomains$/);
      }
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("slow clients are cut: headers within 10 s, the whole request within 30 s", async () => {
    const started = Date.now();
    const slowHeaders = (async () => {
      // Headers never finish: a byte now and then keeps the socket busy.
      const answer = await rawSocket("GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: a", { waitMs: 40_000 });
      return { answer, seconds: (Date.now() - started) / 1000 };
    })();
    const slowBody = (async () => {
      const answer = await rawSocket(
        "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
        { waitMs: 45_000 },
      );
      return { answer, seconds: (Date.now() - started) / 1000 };
    })();
    const [headers, body] = await Promise.all([slowHeaders, slowBody]);
    expect(headers.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(headers.seconds).toBeGreaterThanOrEqual(9.5);
    expect(headers.seconds).toBeLessThan(13);
    // Cut mid-body: the connection closes (any answer already started is not a success).
    expect(body.answer).not.toMatch(/^HTTP\/1\.1 2/);
    expect(body.seconds).toBeGreaterThanOrEqual(29.5);
    expect(body.seconds).toBeLessThan(33);
  }, 60_000);
});
