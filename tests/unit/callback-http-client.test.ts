import type { LookupAddress } from "node:dns";
import http from "node:http";
import net, { type AddressInfo, type LookupFunction } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CallbackRequestError,
  createCallbackClient,
  DEFAULT_MAX_RESPONSE_BYTES,
} from "../../src/server/webhooks/http/callback-http-client";

type Received = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };
type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A local server whose behaviour each test sets, recording every request that reaches it. */
let handler: Handler;
let received: Received[];
let connections: number;
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      handler(req, res);
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  server.closeAllConnections();
});

const reset = (next: Handler) => {
  handler = next;
  received = [];
  connections = 0;
};

/** A resolver that answers from a script (one answer per call, the last one repeating) and counts calls. */
function scriptedLookup(...answers: LookupAddress[][]) {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length, answers.length) - 1]!;
    setImmediate(() => callback(null, answer));
  };
  return { lookup, calls };
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });

async function sendError(promise: Promise<unknown>): Promise<CallbackRequestError> {
  const err = await promise.then(
    () => {
      throw new Error("expected the request to fail");
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CallbackRequestError);
  return err as CallbackRequestError;
}

describe("callback HTTP client: address blocking (allowPrivate=false)", () => {
  it("refuses a host that resolves to loopback, and the server sees nothing", async () => {
    reset((_req, res) => res.end("should not be reached"));
    const { lookup, calls } = scriptedLookup([v4("127.0.0.1")]);
    const client = createCallbackClient({ allowPrivate: false, lookup });
    const err = await sendError(client.send({ url: `https://evil.example:${port}/hook`, body: "{}", timeoutMs: 2000 }));
    expect(err.kind).toBe("blocked_address");
    expect(err.address).toBe("127.0.0.1");
    expect(calls).toEqual(["evil.example"]);
    await new Promise((r) => setTimeout(r, 50));
    expect(connections).toBe(0);
    expect(received).toEqual([]);
  });

  it("refuses when ANY resolved address is non-public", async () => {
    reset((_req, res) => res.end());
    const { lookup } = scriptedLookup([v4("93.184.215.14"), v4("127.0.0.1")]);
    const client = createCallbackClient({ allowPrivate: false, lookup });
    const err = await sendError(client.send({ url: `https://mixed.example:${port}/`, timeoutMs: 2000 }));
    expect(err.kind).toBe("blocked_address");
    expect(err.address).toBe("127.0.0.1");
    expect(connections).toBe(0);
  });

  it.each([
    [[{ address: "::1", family: 6 }]],
    [[{ address: "::ffff:127.0.0.1", family: 6 }]],
    [[{ address: "169.254.169.254", family: 4 }]],
    [[{ address: "10.0.0.8", family: 4 }]],
  ])("refuses resolved %j", async (answer) => {
    reset((_req, res) => res.end());
    const client = createCallbackClient({ allowPrivate: false, lookup: scriptedLookup(answer).lookup });
    const err = await sendError(client.send({ url: `https://x.example:${port}/`, timeoutMs: 2000 }));
    expect(err.kind).toBe("blocked_address");
  });

  it("checks IP-literal hosts without DNS", async () => {
    reset((_req, res) => res.end());
    const { lookup, calls } = scriptedLookup([v4("8.8.8.8")]);
    const client = createCallbackClient({ allowPrivate: false, lookup });
    const err = await sendError(client.send({ url: `https://2130706433:${port}/`, timeoutMs: 2000 }));
    expect(err.kind).toBe("invalid_url");
    expect(calls).toEqual([]);
    expect(connections).toBe(0);
  });

  it("rejects a URL the policy refuses before resolving anything", async () => {
    const { lookup, calls } = scriptedLookup([v4("8.8.8.8")]);
    const client = createCallbackClient({ allowPrivate: false, lookup });
    for (const url of [
      "http://api.example.com/",
      "https://user:pw@api.example.com/",
      "https://localhost/",
      "not a url",
    ]) {
      const err = await sendError(client.send({ url, timeoutMs: 2000 }));
      expect(err.kind).toBe("invalid_url");
    }
    expect(calls).toEqual([]);
  });

  it("reports resolver failures as dns", async () => {
    const lookup: LookupFunction = (hostname, _options, callback) => {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = "ENOTFOUND";
      setImmediate(() => callback(err, []));
    };
    const client = createCallbackClient({ allowPrivate: false, lookup });
    const err = await sendError(client.send({ url: "https://nowhere.example/", timeoutMs: 2000 }));
    expect(err.kind).toBe("dns");
    expect((err.cause as NodeJS.ErrnoException).code).toBe("ENOTFOUND");
  });

  it("reports an empty answer as dns", async () => {
    const client = createCallbackClient({ allowPrivate: false, lookup: scriptedLookup([]).lookup });
    const err = await sendError(client.send({ url: "https://empty.example/", timeoutMs: 2000 }));
    expect(err.kind).toBe("dns");
  });
});

describe("callback HTTP client: DNS rebinding", () => {
  it("resolves once and connects to the checked address, never a later answer", async () => {
    reset((_req, res) => res.end("pinned"));
    // First answer is the (permitted) local server; a second lookup would get an unroutable TEST-NET address.
    const { lookup, calls } = scriptedLookup([v4("127.0.0.1")], [v4("192.0.2.1")]);
    const client = createCallbackClient({ allowPrivate: true, lookup });
    const res = await client.send({ url: `http://rebind.example:${port}/hook`, timeoutMs: 2000 });
    expect(res.body).toBe("pinned");
    expect(res.remoteAddress).toBe("127.0.0.1");
    expect(calls).toEqual(["rebind.example"]);
    expect(received).toHaveLength(1);
  });

  it("with a public first answer and loopback later, connects to the public one only", async () => {
    reset((_req, res) => res.end("must not be reached"));
    const { lookup, calls } = scriptedLookup([v4("93.184.215.14")], [v4("127.0.0.1")]);
    const client = createCallbackClient({ allowPrivate: false, lookup });
    const err = await sendError(client.send({ url: `https://rebind.example:${port}/hook`, timeoutMs: 300 }));
    // The sandbox may refuse, drop or (with network) reach 93.184.215.14; never 127.0.0.1.
    expect(["connection", "timeout"]).toContain(err.kind);
    expect(err.address).toBe("93.184.215.14");
    expect(calls).toEqual(["rebind.example"]);
    expect(connections).toBe(0);
    expect(received).toEqual([]);
  });
});

describe("callback HTTP client: exchange (allowPrivate=true)", () => {
  it("returns status, headers, body, duration and remote address", async () => {
    reset((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.setHeader("x-multi", ["a", "b"]);
      res.statusCode = 201;
      res.end('{"ok":true}');
    });
    const client = createCallbackClient({ allowPrivate: true });
    const res = await client.send({ url: `http://127.0.0.1:${port}/twilio/start?x=1`, timeoutMs: 2000 });
    expect(res.status).toBe(201);
    expect(res.body).toBe('{"ok":true}');
    expect(res.truncated).toBe(false);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["x-multi"]).toBe("a, b");
    expect(res.remoteAddress).toBe("127.0.0.1");
    expect(res.durationMs).toBeGreaterThanOrEqual(0);
    expect(res.durationMs).toBeLessThan(2000);
    expect(received[0]?.url).toBe("/twilio/start?x=1");
  });

  it("delivers method, body and headers intact, with Host from the URL", async () => {
    reset((_req, res) => res.end());
    const { lookup } = scriptedLookup([v4("127.0.0.1")]);
    const client = createCallbackClient({ allowPrivate: true, lookup });
    const body = JSON.stringify({ call: "CA123", text: "héllo ✓ 🚀" });
    await client.send({
      url: `http://tenant.example:${port}/hook`,
      headers: {
        "Content-Type": "application/json",
        "X-Signature": "v1,abc==",
        Host: "attacker.example",
        "Content-Length": "1",
      },
      body,
      timeoutMs: 2000,
    });
    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req?.method).toBe("POST");
    expect(req?.body).toBe(body);
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers["x-signature"]).toBe("v1,abc==");
    expect(req?.headers.host).toBe(`tenant.example:${port}`);
    expect(req?.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
  });

  it("does not follow redirects", async () => {
    reset((req, res) => {
      if (req.url === "/start") {
        res.statusCode = 302;
        res.setHeader("location", `http://127.0.0.1:${port}/target`);
      }
      res.end();
    });
    const client = createCallbackClient({ allowPrivate: true });
    const res = await client.send({ url: `http://127.0.0.1:${port}/start`, timeoutMs: 2000 });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`http://127.0.0.1:${port}/target`);
    await new Promise((r) => setTimeout(r, 50));
    expect(received.map((r) => r.url)).toEqual(["/start"]);
  });

  it("times out a server that never answers", async () => {
    reset(() => {
      /* never responds */
    });
    const client = createCallbackClient({ allowPrivate: true });
    const started = performance.now();
    const err = await sendError(client.send({ url: `http://127.0.0.1:${port}/slow`, timeoutMs: 200 }));
    const elapsed = performance.now() - started;
    expect(err.kind).toBe("timeout");
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1000);
  });

  it("times out a body that trickles past the deadline", async () => {
    reset((_req, res) => {
      res.write("start");
      const timer = setInterval(() => res.write("."), 20);
      res.on("close", () => clearInterval(timer));
    });
    const client = createCallbackClient({ allowPrivate: true });
    const err = await sendError(client.send({ url: `http://127.0.0.1:${port}/trickle`, timeoutMs: 200 }));
    expect(err.kind).toBe("timeout");
  });

  it("times out a resolver that never answers", async () => {
    const lookup: LookupFunction = () => {
      /* hangs */
    };
    const client = createCallbackClient({ allowPrivate: true, lookup });
    const err = await sendError(client.send({ url: "http://hang.example/", timeoutMs: 100 }));
    expect(err.kind).toBe("timeout");
  });

  it("truncates a huge response at the cap and stops reading", async () => {
    let written = 0;
    let closed = false;
    reset((_req, res) => {
      const chunk = Buffer.alloc(16 * 1024, "x");
      const pump = () => {
        // Bounded so that a client which kept reading would make the test end, not hang.
        while (!closed && written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => (closed = true));
      pump();
    });
    const client = createCallbackClient({ allowPrivate: true });
    const res = await client.send({ url: `http://127.0.0.1:${port}/huge`, timeoutMs: 5000 });
    expect(res.truncated).toBe(true);
    expect(Buffer.byteLength(res.body)).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(res.body).toBe("x".repeat(DEFAULT_MAX_RESPONSE_BYTES));
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it("honours a custom cap and does not split a UTF-8 character", async () => {
    reset((_req, res) => res.end("ab✓✓✓")); // ✓ is 3 bytes
    const client = createCallbackClient({ allowPrivate: true });
    const res = await client.send({ url: `http://127.0.0.1:${port}/`, timeoutMs: 2000, maxResponseBytes: 6 });
    expect(res).toMatchObject({ truncated: true, body: "ab✓" });
  });

  it("does not mark a body of exactly the cap as truncated", async () => {
    reset((_req, res) => res.end("12345"));
    const client = createCallbackClient({ allowPrivate: true });
    const res = await client.send({ url: `http://127.0.0.1:${port}/`, timeoutMs: 2000, maxResponseBytes: 5 });
    expect(res).toMatchObject({ truncated: false, body: "12345" });
  });

  it("reports a refused connection as connection", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const client = createCallbackClient({ allowPrivate: true });
    const err = await sendError(client.send({ url: `http://127.0.0.1:${deadPort}/`, timeoutMs: 2000 }));
    expect(err.kind).toBe("connection");
    expect(err.message).toBe(`Connection refused by 127.0.0.1 port ${deadPort}`);
  });

  it("names an answer that is not HTTP", async () => {
    const sockets: net.Socket[] = [];
    const garbage = net.createServer((socket) => {
      sockets.push(socket);
      socket.end("SMTP ready\r\n\r\n");
    });
    await new Promise<void>((resolve) => garbage.listen(0, "127.0.0.1", resolve));
    try {
      const client = createCallbackClient({ allowPrivate: true });
      const url = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}/`;
      const err = await sendError(client.send({ url, timeoutMs: 2000 }));
      expect(err.kind).toBe("connection");
      expect(err.message).toMatch(/^The answer is not valid HTTP \(HPE_/);
    } finally {
      // The test server never reads, so it never sees the client's close: its sockets end here.
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => garbage.close(resolve));
    }
  });
});

describe("callback HTTP client: TLS", () => {
  it("says so when an https:// URL reaches a server that does not speak TLS", async () => {
    reset((_req, res) => res.end("plain http"));
    const client = createCallbackClient({ allowPrivate: true });
    const err = await sendError(client.send({ url: `https://127.0.0.1:${port}/`, timeoutMs: 2000 }));
    expect(err.kind).toBe("connection");
    expect(err.message).toMatch(
      /^TLS error: the server did not answer TLS \(an http:\/\/ server behind an https:\/\/ URL\?\)/,
    );
  });

  it("connects to the pinned address but sends the original hostname as SNI", async () => {
    let clientHello: Buffer = Buffer.alloc(0);
    const tlsPeer = net.createServer((socket) => {
      socket.once("data", (data: Buffer) => {
        clientHello = data;
        socket.destroy();
      });
    });
    await new Promise<void>((resolve) => tlsPeer.listen(0, "127.0.0.1", resolve));
    const tlsPort = (tlsPeer.address() as AddressInfo).port;
    try {
      const { lookup, calls } = scriptedLookup([v4("127.0.0.1")], [v4("192.0.2.1")]);
      const client = createCallbackClient({ allowPrivate: true, lookup });
      const err = await sendError(client.send({ url: `https://hooks.customer.example.:${tlsPort}/`, timeoutMs: 2000 }));
      expect(err.kind).toBe("connection");
      expect(calls).toHaveLength(1);
      expect(clientHello[0]).toBe(0x16); // TLS handshake record
      expect(clientHello.includes("hooks.customer.example")).toBe(true);
      expect(clientHello.includes("hooks.customer.example.")).toBe(false);
    } finally {
      await new Promise((resolve) => tlsPeer.close(resolve));
    }
  });
});

describe("callback HTTP client: keep-alive", () => {
  it("sends one target's requests over one kept-alive connection", async () => {
    reset((_req, res) => res.end("ok"));
    const client = createCallbackClient({ allowPrivate: true });
    for (let i = 0; i < 3; i++) {
      const res = await client.send({ url: `http://127.0.0.1:${port}/hook`, body: String(i), timeoutMs: 2000 });
      expect(res.body).toBe("ok");
    }
    expect(received.map((r) => r.body)).toEqual(["0", "1", "2"]);
    expect(connections).toBe(1);
  });

  it("pools per hostname and checked address: another hostname on the same address gets its own connection", async () => {
    reset((_req, res) => res.end("ok"));
    const { lookup } = scriptedLookup([v4("127.0.0.1")]);
    const client = createCallbackClient({ allowPrivate: true, lookup });
    await client.send({ url: `http://a.example:${port}/`, timeoutMs: 2000 });
    await client.send({ url: `http://b.example:${port}/`, timeoutMs: 2000 });
    await client.send({ url: `http://a.example:${port}/`, timeoutMs: 2000 });
    expect(received.map((r) => r.headers.host)).toEqual([
      `a.example:${port}`,
      `b.example:${port}`,
      `a.example:${port}`,
    ]);
    expect(connections).toBe(2);
  });

  it("never sends over a pooled socket to an address the hostname no longer resolves to", async () => {
    reset((_req, res) => res.end("first"));
    const { lookup } = scriptedLookup([v4("127.0.0.1")], [v4("192.0.2.1")]);
    const client = createCallbackClient({ allowPrivate: true, lookup });
    expect((await client.send({ url: `http://moving.example:${port}/`, timeoutMs: 2000 })).body).toBe("first");
    // The open connection to 127.0.0.1 is not the one the new answer allows: the request goes to 192.0.2.1 or nowhere.
    const err = await sendError(client.send({ url: `http://moving.example:${port}/`, timeoutMs: 300 }));
    expect(["connection", "timeout"]).toContain(err.kind);
    expect(err.address).toBe("192.0.2.1");
    expect(received).toHaveLength(1);
  });

  it("sends once more, on a fresh connection, when the server had closed the pooled socket", async () => {
    const perSocket = new Map<unknown, number>();
    reset((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      // The second request on a connection finds it closed (the server's idle timeout racing our reuse).
      if (n === 2) return req.socket.destroy();
      res.end(`answer ${received.length}`);
    });
    const client = createCallbackClient({ allowPrivate: true });
    expect((await client.send({ url: `http://127.0.0.1:${port}/`, body: "a", timeoutMs: 2000 })).body).toBe("answer 1");
    const res = await client.send({ url: `http://127.0.0.1:${port}/`, body: "b", timeoutMs: 2000 });
    expect(res.body).toBe("answer 3");
    expect(received.map((r) => r.body)).toEqual(["a", "b", "b"]);
    expect(connections).toBe(2);
  });

  it("does not resend when a fresh connection fails: that is the receiver's failure to report", async () => {
    reset((req) => req.socket.destroy());
    const client = createCallbackClient({ allowPrivate: true });
    const err = await sendError(client.send({ url: `http://127.0.0.1:${port}/`, body: "x", timeoutMs: 2000 }));
    expect(err.kind).toBe("connection");
    expect(received).toHaveLength(1);
  });
});
