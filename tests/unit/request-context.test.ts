import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "@/server/http/client-ip";
import { REQUEST_ID_HEADER, requestContextOf, stampRequestContext } from "@/server/http/request-context";

function incoming(headers: Record<string, string>, remoteAddress = "10.1.2.3"): IncomingMessage {
  return { headers: { ...headers }, socket: { remoteAddress } } as unknown as IncomingMessage;
}

describe("request context", () => {
  it("the server keeps a sane incoming id and stamps it with the client address over what the client sent", () => {
    const req = incoming({
      [REQUEST_ID_HEADER]: "trace-1",
      [CLIENT_IP_HEADER]: "6.6.6.6",
      "x-forwarded-for": "1.1.1.1, 2.2.2.2",
    });
    expect(stampRequestContext(req, true)).toEqual({ requestId: "trace-1", ip: "2.2.2.2" });
    expect(req.headers[CLIENT_IP_HEADER]).toBe("2.2.2.2");
    expect(stampRequestContext(incoming({ "x-forwarded-for": "1.1.1.1" }), false).ip).toBe("10.1.2.3");
  });

  it("replaces an insane id, and handlers read back exactly what was stamped, from either kind of headers", () => {
    const req = incoming({ [REQUEST_ID_HEADER]: "bad id with spaces" });
    const { requestId, ip } = stampRequestContext(req, false);
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestContextOf(req.headers)).toEqual({ requestId, ip });
    expect(requestContextOf(new Headers(req.headers as Record<string, string>))).toEqual({ requestId, ip });
  });

  it("a request that never passed the server still gets an id, and no address", () => {
    const context = requestContextOf(new Headers());
    expect(context.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(context.ip).toBe("unknown");
  });
});
