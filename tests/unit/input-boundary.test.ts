import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import {
  bufferBody,
  checkBody,
  checkedBodyOf,
  checkHead,
  checkUrl,
  hasBody,
  originFormOf,
  passInputBoundary,
  withBody,
} from "../../src/server/http/input-boundary";
import { pageContentSecurityPolicy, securityHeaders } from "../../src/server/http/security-headers";

const head = (method: string, url: string, headers: Record<string, string> = {}) => checkHead({ method, url, headers });
const codeOf = (r: ReturnType<typeof checkHead>) => r?.error.code ?? null;

function request(chunks: Buffer[]): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  for (const c of chunks) req.push(c);
  req.push(null);
  return req;
}

describe("checkHead: the request target", () => {
  it.each([
    ["GET", "*"],
    ["HEAD", "*"],
    ["GET", "*x"],
    ["OPTIONS", "*"],
    ["GET", "api/account"],
    ["GET", "?a=1"],
    ["GET", "example.com:443"],
  ])("refuses %s %s with 400 VALIDATION_FAILED", (method, url) => {
    expect(codeOf(head(method, url))).toBe("VALIDATION_FAILED");
  });
  it("takes a path and the absolute form HTTP/1.1 servers must accept", () => {
    expect(head("GET", "/api/health")).toBeNull();
    expect(head("GET", "http://localhost:3000/api/health")).toBeNull();
  });
  it("serves the absolute form as its path and query", () => {
    expect(originFormOf("http://x/api/health?a=1")).toBe("/api/health?a=1");
    expect(originFormOf("HTTPS://x:8080")).toBe("/");
    expect(originFormOf("http://x?a=1")).toBe("/?a=1");
    expect(originFormOf("/api/health")).toBe("/api/health");
    expect(originFormOf("*")).toBe("*");
    expect(originFormOf("http:/x")).toBe("http:/x");
  });
});

describe("checkHead: methods", () => {
  it("refuses TRACE, CONNECT and anything unserved on every path, with Allow", () => {
    for (const path of ["/api/account", "/", "/api/trpc/system.ready", "/docs"]) {
      for (const method of ["TRACE", "CONNECT", "PROPFIND"]) {
        const r = head(method, path);
        expect(codeOf(r), `${method} ${path}`).toBe("METHOD_NOT_ALLOWED");
        expect(r!.headers.allow).toBeTruthy();
        expect(r!.headers.allow).not.toMatch(/TRACE/);
      }
    }
  });

  it("knows the methods of routes Next.js serves itself; REST paths are left to the REST handler", () => {
    expect(head("PUT", "/api/trpc/system.ready")!.headers.allow).toBe("GET, HEAD, POST");
    expect(head("DELETE", "/api/session/csrf")!.headers.allow).toBe("GET, HEAD, POST");
    expect(head("GET", "/api/webhooks/stripe")!.headers.allow).toBe("POST");
    expect(head("GET", "/api/engine/voice/rt_x")!.headers.allow).toBe("POST");
    expect(head("PUT", "/billing/checkout/tok")!.headers.allow).toBe("GET, HEAD, POST");
    expect(head("DELETE", "/billing/portal/tok/cancel")!.headers.allow).toBe("GET, HEAD, POST");
    expect(head("POST", "/billing/portal/tok")!.headers.allow).toBe("GET, HEAD");
    expect(head("POST", "/login")!.headers.allow).toBe("GET, HEAD");
    // Next.js routes an encoded slash as part of one segment: this is the checkout page, token "a/b".
    expect(head("PUT", "/billing/checkout/a%2Fb")!.headers.allow).toBe("GET, HEAD, POST");
    expect(head("PUT", "/api/account")).toBeNull();
    expect(head("GET", "/api/trpc/system.ready")).toBeNull();
    expect(head("GET", "/dashboard/numbers")).toBeNull();
  });
});

describe("checkUrl", () => {
  it("refuses NUL in path or query, raw, encoded or as a JSON escape in a query value", () => {
    expect(checkUrl("/api/phone-numbers/%00")?.error.code).toBe("VALIDATION_FAILED");
    expect(checkUrl("/api/usage?cursor=a%00b")?.error.code).toBe("VALIDATION_FAILED");
    expect(checkUrl(`/api/trpc/x?input=${encodeURIComponent('{"a":"\\u0000"}')}`)?.error.code).toBe(
      "VALIDATION_FAILED",
    );
    expect(checkUrl("/api/x\0")?.error.code).toBe("VALIDATION_FAILED");
  });

  it("refuses malformed or non-UTF-8 escapes, in the path and the query", () => {
    for (const url of ["/api/%", "/api/%zz", "/api/%E0%A4%A", "/api/%FF", "/api/usage?cursor=%", "/api/usage?%G1=x"]) {
      expect(checkUrl(url)?.error.code, url).toBe("VALIDATION_FAILED");
    }
  });

  it("passes ordinary URLs, an escaped backslash before u0000, and + in queries", () => {
    for (const url of [
      "/",
      "/api/usage?limit=10&cursor=abc",
      "/api/phone-numbers/%2B15551234567",
      "/x?q=a+b%20c",
      `/x?input=${encodeURIComponent('{"a":"\\\\u0000"}')}`,
    ]) {
      expect(checkUrl(url), url).toBeNull();
    }
  });
});

describe("checkHead: size and content type", () => {
  it("refuses a declared body over 64 KiB before reading it, closing the connection", () => {
    const r = head("POST", "/api/api-keys", { "content-length": String(64 * 1024 + 1) });
    expect(codeOf(r)).toBe("PAYLOAD_TOO_LARGE");
    expect(r!.headers.connection).toBe("close");
    expect(head("POST", "/api/api-keys", { "content-length": String(64 * 1024) })).toBeNull();
  });

  it("tRPC takes exactly application/json; next-auth and the portal take forms", () => {
    expect(codeOf(head("POST", "/api/trpc/auth.register", { "content-type": "application/jsonx" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(codeOf(head("POST", "/api/trpc/auth.register", {}))).toBe("VALIDATION_FAILED");
    expect(head("POST", "/api/trpc/auth.register", { "content-type": "application/json; charset=utf-8" })).toBeNull();
    expect(head("POST", "/api/trpc/auth.register", { "content-type": "Application/JSON" })).toBeNull();
    expect(codeOf(head("POST", "/api/session/callback/credentials", { "content-type": "application/json" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(
      head("POST", "/api/session/callback/credentials", { "content-type": "application/x-www-form-urlencoded" }),
    ).toBeNull();
    // The billing pages' buttons POST and read no body: any body is fine (docs/decisions.md §4).
    expect(head("POST", "/billing/checkout/tok", { "content-type": "application/json" })).toBeNull();
    expect(
      head("POST", "/billing/portal/tok/cancel", { "content-type": "multipart/form-data; boundary=x" }),
    ).toBeNull();
    // GETs carry no body to type.
    expect(head("GET", "/api/trpc/system.ready", {})).toBeNull();
  });
});

describe("checkBody", () => {
  const json = "application/json";
  const form = "application/x-www-form-urlencoded";
  it("refuses a raw NUL whatever the type", () => {
    expect(checkBody(Buffer.from('{"a":"x\0"}'), json, "/api/x")?.error.code).toBe("VALIDATION_FAILED");
    expect(checkBody(Buffer.from("a=\0"), "multipart/form-data", "/api/x")?.error.code).toBe("VALIDATION_FAILED");
  });
  it("refuses \\u0000 in JSON and %00 in forms, and in untyped bodies both", () => {
    expect(checkBody(Buffer.from('{"a":"x\\u0000"}'), json, "/api/x")?.error.code).toBe("VALIDATION_FAILED");
    expect(checkBody(Buffer.from('{"\\U0000":1}'), json, "/api/x")?.error.code).toBe("VALIDATION_FAILED");
    expect(checkBody(Buffer.from('{"a":"\\\\\\u0000"}'), json, "/api/x")?.error.code).toBe("VALIDATION_FAILED");
    expect(checkBody(Buffer.from("CallSid=CA%00"), form, "/api/x")?.error.code).toBe("VALIDATION_FAILED");
    expect(checkBody(Buffer.from("CallSid=CA%00"), undefined, "/api/x")?.error.code).toBe("VALIDATION_FAILED");
    // The engine parses whatever it is sent as a form.
    expect(checkBody(Buffer.from("CallSid=CA%00"), "multipart/form-data", "/api/x")?.error.code).toBe(
      "VALIDATION_FAILED",
    );
    expect(checkBody(Buffer.from("CallSid=CA%00"), "application/json", "/api/engine/voice/rt_x")?.error.code).toBe(
      "VALIDATION_FAILED",
    );
    expect(checkBody(Buffer.from('{"a":"\\u0000"}'), "text/plain", "/api/x")?.error.code).toBe("VALIDATION_FAILED");
    // REST parses any body as JSON, whatever type it declares (found by a 48,000-request fuzz run).
    expect(checkBody(Buffer.from('{"label":"\\u0000"}'), form, "/api/api-keys")?.error.code).toBe("VALIDATION_FAILED");
    expect(
      checkBody(Buffer.from('{"label":"\\u0000"}'), "multipart/form-data; boundary=x", "/api/api-keys")?.error.code,
    ).toBe("VALIDATION_FAILED");
  });
  it("passes text that only looks like NUL to the other parser", () => {
    expect(checkBody(Buffer.from('{"a":"100%00 sure"}'), json, "/api/x")).toBeNull();
    expect(checkBody(Buffer.from('{"a":"\\\\u0000"}'), json, "/api/x")).toBeNull();
    expect(checkBody(Buffer.from("note=%5Cu0000"), form, "/api/x")).toBeNull();
    // next-auth reads forms: a password may hold the six characters \u0000.
    expect(checkBody(Buffer.from("password=a\\u0000b"), form, "/api/session/callback/credentials")).toBeNull();
    expect(checkBody(Buffer.from("{}"), json, "/api/x")).toBeNull();
  });
});

describe("bufferBody and withBody", () => {
  it("reads a body up to the limit and hands the same bytes on", async () => {
    const req = request([Buffer.from("hello "), Buffer.from("world")]);
    const body = await bufferBody(req);
    expect(body.toString()).toBe("hello world");
    const again: Buffer[] = [];
    const replayed = withBody(req, body);
    expect([replayed.method, replayed.url]).toEqual([req.method, req.url]);
    for await (const chunk of replayed) again.push(chunk as Buffer);
    expect(Buffer.concat(again).toString()).toBe("hello world");
  });

  it("bodyAsBytes (the engine): the request itself goes on, its checked bytes with it; otherwise a replayable copy", async () => {
    const form = () => {
      const req = request([Buffer.from("CallSid=CA1&To=%2B1")]);
      Object.assign(req, {
        method: "POST",
        url: "/api/engine/voice/rt_x",
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": "19" },
      });
      return req;
    };
    const req = form();
    const passed = await passInputBoundary(req, new ServerResponse(req), "r1", { bodyAsBytes: true });
    expect(passed).toBe(req);
    expect(checkedBodyOf(req)?.toString()).toBe("CallSid=CA1&To=%2B1");
    const other = form();
    const copy = await passInputBoundary(other, new ServerResponse(other), "r2");
    expect(copy).not.toBe(other);
    expect(checkedBodyOf(copy!)?.toString()).toBe("CallSid=CA1&To=%2B1");
  });

  it("refuses a streamed body over the limit", async () => {
    const req = request([Buffer.alloc(40), Buffer.alloc(40)]);
    await expect(bufferBody(req, 64)).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("hasBody: a length above zero or a transfer coding", () => {
    expect(hasBody({ headers: {} })).toBe(false);
    expect(hasBody({ headers: { "content-length": "0" } })).toBe(false);
    expect(hasBody({ headers: { "content-length": "3" } })).toBe(true);
    expect(hasBody({ headers: { "transfer-encoding": "chunked" } })).toBe(true);
  });
});

describe("security headers", () => {
  it("HSTS only for an https public origin", () => {
    expect(securityHeaders("http://localhost:3000")["strict-transport-security"]).toBeUndefined();
    expect(securityHeaders("https://routekit.example.com")["strict-transport-security"]).toMatch(/max-age=\d+/);
    const h = securityHeaders("http://x");
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  });
  it("a page policy allows scripts only by nonce, never unsafe-inline or eval in production", () => {
    const csp = pageContentSecurityPolicy("abc");
    expect(csp).toMatch(/script-src 'self' 'nonce-abc' 'strict-dynamic'/);
    expect(csp).not.toMatch(/unsafe-eval/);
    expect(csp.match(/script-src[^;]*/)![0]).not.toMatch(/unsafe-inline/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
  });
});
