import { mkdtempSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, setConnectionUrl } from "../../src/server/db/client";
import { parseEngineParams } from "../../src/server/engine/engine-params";
import {
  finalStatusJournal,
  handleFinalStatus,
  replayFinalStatuses,
} from "../../src/server/engine/final-status-journal";
import { EMPTY_TWIML, handleEngineRequest } from "../../src/server/engine/handle-engine-request";
import { parseEnv, setEnv } from "../../src/server/env";
import { toErrorResponse } from "../../src/server/errors/to-error-response";

// A database that accepts connections and never answers (a network partition,
// a hung server): the worst case for Twilio's budget, where nothing fails fast.
let blackhole: net.Server;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  blackhole = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => blackhole.listen(0, "127.0.0.1", () => resolve()));
  const url = `postgresql://postgres@127.0.0.1:${(blackhole.address() as net.AddressInfo).port}/routekit`;
  setEnv(
    parseEnv({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-deadline-")),
      AUTH_SECRET: "x".repeat(40),
      DATABASE_URL: url,
      LOG_LEVEL: "silent",
    }),
  );
  setConnectionUrl(url);
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await disconnectDb();
  await new Promise((r) => blackhole.close(r));
});

const request = (CallStatus: string) => ({
  routingToken: "rt_test",
  pathAndQuery: "/api/engine/voice/rt_test",
  callId: null,
  params: parseEngineParams(
    new URLSearchParams({
      CallSid: `CA${"1".repeat(32)}`,
      CallStatus,
      CallDuration: "42",
      To: "+14155550100",
    }).toString(),
  ),
  signature: null,
});

describe("a database that does not answer", () => {
  it("a final status is journaled and answered 200 at the deadline, not when the database gives up", async () => {
    const started = performance.now();
    expect(await handleFinalStatus(request("completed"), 300)).toBe(EMPTY_TWIML);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await finalStatusJournal().pendingNames()).toHaveLength(1);
  });

  it("a voice request gives up within the pool's connection timeout, as 503 SERVICE_UNAVAILABLE", {
    timeout: 20_000,
  }, async () => {
    const started = performance.now();
    const err = await handleEngineRequest(request("ringing")).then(
      () => null,
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(7000);
    const mapped = toErrorResponse(err);
    expect(mapped.status).toBe(503);
    expect(mapped.body.error.code).toBe("SERVICE_UNAVAILABLE");
  });

  it("the journal keeps the status while the database is still away", { timeout: 20_000 }, async () => {
    expect(await replayFinalStatuses()).toEqual({ applied: 0, corrupt: 0, remaining: 1 });
    expect(await finalStatusJournal().pendingNames()).toHaveLength(1);
  });
});
