import net from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { newCallSid } from "../../src/twilio-simulator/twilio-simulator";
import { activeCustomerOn } from "../support/own-server";
import { startReceiver } from "../support/receiver";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

// A rolling restart (docs/operations.md, "Stopping an instance"): on SIGTERM the
// instance says it is not ready, refuses new connections, answers what is in
// flight (a voice request waiting on a slow backend included), records it, and
// exits 0 within SHUTDOWN_GRACE_MS. PostgreSQL only: the embedded database
// lives inside the server and stops with it.
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>slow but sure</Say></Response>';
const BACKEND_MS = 1_500;
const GRACE_MS = 8_000;

/** A request whose last header line is held back: sent whole only when `finish` is called. */
function heldRequest(baseUrl: string, path: string) {
  const url = new URL(baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  let data = "";
  const closed = new Promise<string>((resolve) => {
    socket.on("data", (d) => {
      data += d.toString("utf8");
    });
    socket.on("close", () => resolve(data));
    socket.on("error", () => resolve(data));
  });
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return {
    async start() {
      await connected;
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n`);
    },
    async finish(): Promise<string> {
      socket.write("\r\n");
      return closed;
    },
  };
}

describe.skipIf(inject("embedded"))("a graceful stop", () => {
  let server: BuiltServer;
  let db: pg.Pool;
  let backend: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    const databaseUrl = await siblingDatabase(inject("databaseUrl"), "shutdown");
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    backend = await startReceiver(async (r, res) => {
      if (r.path === "/start") await new Promise((resolve) => setTimeout(resolve, BACKEND_MS));
      res.writeHead(200, { "content-type": "text/xml" }).end(XML);
    });
    server = await startBuiltServer({
      name: "it-shutdown",
      env: {
        AUTH_SECRET: TEST_AUTH_SECRET,
        DATABASE_URL: databaseUrl,
        CALLBACK_ALLOW_PRIVATE: "true",
        TWILIO_API_BASE_URL: "http://127.0.0.1:9",
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
      },
    });
  }, 180_000);

  afterAll(async () => {
    if (server?.child.exitCode === null) await server.stop();
    await db?.end();
    await backend?.close();
  });

  it("on SIGTERM: not ready at once, no new connection, the voice request in flight answered and recorded, exit 0", {
    timeout: 60_000,
  }, async () => {
    const { engineVoiceUrl, number } = await activeCustomerOn(server.baseUrl, backend, { tag: "shutdown" });

    // A probe on a connection of its own, opened before the signal, its request completed after it.
    const probe = heldRequest(server.baseUrl, "/api/ready");
    await probe.start();

    const callSid = newCallSid();
    const voice = fetch(engineVoiceUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        CallSid: callSid,
        AccountSid: `AC${"6".repeat(32)}`,
        From: "+14155550100",
        To: number,
        Direction: "inbound",
        CallStatus: "ringing",
      }).toString(),
    }).then(async (res) => ({ status: res.status, body: await res.text(), at: performance.now() }));

    // The backend has the call.started: the voice request is in flight.
    const deadline = Date.now() + 10_000;
    while (!backend.received.some((r) => r.path === "/start") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(backend.received.some((r) => r.path === "/start")).toBe(true);

    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      server.child.once("exit", (code) => resolve({ code, at: performance.now() })),
    );
    const signalledAt = performance.now();
    server.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));

    // Readiness says so at once.
    const ready = await probe.finish();
    expect(ready).toMatch(/^HTTP\/1\.1 503 /);
    // The body may come chunked: the JSON is between its first and last brace.
    const readyBody = JSON.parse(ready.slice(ready.indexOf("{"), ready.lastIndexOf("}") + 1));
    expect(readyBody.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(readyBody.checks.instance).toBe("shutting down");

    // A new connection is refused: the load balancer sends it elsewhere.
    const fresh = await fetch(`${server.baseUrl}/api/health`).then(
      (r) => `status ${r.status}`,
      (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
    );
    expect(fresh).toBe("ECONNREFUSED");

    // The call in flight gets its backend's answer, not the apology.
    const answered = await voice;
    expect(answered.status).toBe(200);
    expect(answered.body).toContain("slow but sure");

    const exit = await exited;
    expect(exit.code).toBe(0);
    // It waited for the answer, and no longer than the grace.
    expect(exit.at).toBeGreaterThan(answered.at - 50);
    expect(exit.at - signalledAt).toBeLessThan(GRACE_MS);

    // The call log's write after the answer landed before the pool closed.
    const { rows } = await db.query(`SELECT answer FROM "Call" WHERE "callSid" = $1`, [callSid]);
    expect(rows[0]?.answer).toBe("xml");
  });
});

describe.skipIf(inject("embedded"))("a graceful stop behind a load balancer (SHUTDOWN_DRAIN_MS)", () => {
  const DRAIN_MS = 1_500;
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer({
      name: "it-shutdown-drain",
      env: {
        AUTH_SECRET: TEST_AUTH_SECRET,
        DATABASE_URL: await siblingDatabase(inject("databaseUrl"), "shutdown_drain"),
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      },
    });
  }, 180_000);

  afterAll(async () => {
    if (server?.child.exitCode === null) await server.stop();
  });

  it("on SIGTERM: not ready at once, yet new connections are served until the drain ends; then refused; exit 0", {
    timeout: 30_000,
  }, async () => {
    const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
    const signalledAt = performance.now();
    server.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    // The load balancer's next check takes it out of rotation...
    const ready = await fetch(`${server.baseUrl}/api/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { instance?: string } }).checks.instance).toBe("shutting down");
    // ...while a request it still sends meanwhile, on a new connection, is answered, not refused.
    const during = await fetch(`${server.baseUrl}/api/health`, { headers: { connection: "close" } });
    expect(during.status).toBe(200);
    await during.text();
    // Then the listener closes.
    let refusedAt = 0;
    while (!refusedAt && performance.now() - signalledAt < 6_000) {
      const outcome = await fetch(`${server.baseUrl}/api/health`, { headers: { connection: "close" } }).then(
        async (r) => {
          await r.text();
          return "answered";
        },
        (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
      );
      if (outcome === "ECONNREFUSED") refusedAt = performance.now();
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(refusedAt).toBeGreaterThan(0);
    expect(refusedAt - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    expect(await exited).toBe(0);
  });
});
