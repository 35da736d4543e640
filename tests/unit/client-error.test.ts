import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { answerClientError, refuseConnect } from "../../src/server/http/client-error";

/** A socket stand-in that records what the server writes before it closes. */
function socket(): { s: PassThrough; written: () => string } {
  const s = new PassThrough();
  let out = "";
  s.on("data", (d: Buffer) => (out += d.toString()));
  return { s, written: () => out };
}

const err = (code: string) => Object.assign(new Error(code), { code });

describe("answers to what Node's parser refuses", () => {
  it("a malformed request is a 400 in the envelope, with a request id", async () => {
    const { s, written } = socket();
    answerClientError(err("HPE_INVALID_HEADER_TOKEN"), s);
    await new Promise((r) => setImmediate(r));
    expect(written()).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(written()).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    const body = JSON.parse(written().split("\r\n\r\n")[1]!);
    expect(body.error.code).toBe("VALIDATION_FAILED");
  });

  it("oversized headers are a 400 saying so; a timeout keeps Node's bodiless 408", async () => {
    const big = socket();
    answerClientError(err("HPE_HEADER_OVERFLOW"), big.s);
    const slow = socket();
    answerClientError(err("ERR_HTTP_REQUEST_TIMEOUT"), slow.s);
    await new Promise((r) => setImmediate(r));
    expect(big.written()).toMatch(/^HTTP\/1\.1 400 .*16 KiB/s);
    expect(slow.written()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(slow.written()).toMatch(/Content-Length: 0\r\n\r\n$/);
  });

  it("every raw answer carries the server's security headers and the API's policy", async () => {
    const bound = {
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "strict-transport-security": "max-age=31536000; includeSubDomains",
    };
    for (const write of [
      (s: PassThrough) => answerClientError(err("HPE_INVALID_METHOD"), s, bound),
      (s: PassThrough) => answerClientError(err("ERR_HTTP_REQUEST_TIMEOUT"), s, bound),
      (s: PassThrough) => refuseConnect(undefined, s, bound),
    ]) {
      const { s, written } = socket();
      write(s);
      await new Promise((r) => setImmediate(r));
      const head = written().split("\r\n\r\n")[0]!;
      expect(head).toMatch(/\r\nx-frame-options: DENY\r\n/);
      expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/);
      expect(head).toMatch(/\r\nstrict-transport-security: max-age=31536000; includeSubDomains\r\n/);
      expect(head).toMatch(/\r\ncontent-security-policy: default-src 'none'; frame-ancestors 'none'/);
    }
  });

  it("CONNECT is a 405 with Allow", async () => {
    const { s, written } = socket();
    refuseConnect(undefined, s);
    await new Promise((r) => setImmediate(r));
    expect(written()).toMatch(/^HTTP\/1\.1 405 /);
    expect(written()).toMatch(/\r\nallow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\n/i);
    expect(written()).toMatch(/"code":"METHOD_NOT_ALLOWED"/);
  });
});
