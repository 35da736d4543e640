import { describe, expect, it } from "vitest";
import { call, newAccount, type ApiResponse } from "./support/api";

describe("HTTP hygiene", () => {
  it("health and readiness", async () => {
    const health = await call("GET", "/api/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok" });
    const ready = await call("GET", "/api/ready");
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready" });
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
});
