import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { verifyEvent } from "@routekit/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrlOf, newActiveAccount, numberBody, randomUsNumber } from "../support/api";
import { startReceiver } from "../support/receiver";
import { sdkClient } from "../support/sdk";
import { until } from "../support/until";

// The `routekit` command (docs/decisions.md §19) as a real process, from the built package's bin, against the
// built service: `trigger` sends a signed sample event, `call` places a simulated call.
const SDK = path.resolve(import.meta.dirname, "../../sdk");
const BIN = path.join(
  SDK,
  (JSON.parse(readFileSync(path.join(SDK, "package.json"), "utf8")) as { bin: { routekit: string } }).bin.routekit,
);
// The Node.js that runs it: this one, or another to check the SDK's floor (ROUTEKIT_CLI_NODE=/path/to/node20).
const NODE = process.env.ROUTEKIT_CLI_NODE || process.execPath;
const server = "permissive" as const;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver((r, res) =>
    r.path === "/start"
      ? res.writeHead(200, { "content-type": "application/json" }).end('{"actions":[{"say":"CLI call"}]}')
      : res.end("ok"),
  );
});
afterAll(() => receiver?.close());

function routekit(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      NODE,
      [BIN, ...args],
      { env: { ...process.env, ROUTEKIT_API_KEY: "", ROUTEKIT_BASE_URL: baseUrlOf(server), ...env }, timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function customer() {
  const account = await newActiveAccount({ server });
  const rk = sdkClient({ baseUrl: baseUrlOf(server), apiKey: account.apiKey, ip: account.ip });
  const { phoneNumber } = await rk.phoneNumbers.create(
    numberBody({ onCallStartUrl: receiver.url("/start"), onCallEndUrl: receiver.url("/end") }),
  );
  const { account: me } = await rk.account.get();
  return { apiKey: account.apiKey, phoneNumber, secret: me.webhookSecret! };
}

describe("routekit", { timeout: 60_000 }, () => {
  it("prints its commands with --help; an unknown command or a missing key is a usage error (exit 2)", async () => {
    const help = await routekit(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/trigger\s+Send a signed sample event/);
    expect(help.stdout).toMatch(/call\s+Place a simulated call/);
    expect((await routekit(["trigger", "--help"])).stdout).toContain("routekit trigger <event-type>");
    const unknown = await routekit(["teleport"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command teleport");
    const noKey = await routekit(["trigger", "call.ended", "--number", "+14155550123"]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("ROUTEKIT_API_KEY");
  });

  it("trigger sends a signed sample to the number's URL, found by its E.164 form or its id", async () => {
    const c = await customer();
    const byNumber = await routekit(["trigger", "call.ended", "--number", c.phoneNumber.phoneNumber], {
      ROUTEKIT_API_KEY: c.apiKey,
    });
    expect(byNumber.stderr).toBe("");
    expect(byNumber.code).toBe(0);
    expect(byNumber.stdout).toMatch(/^call\.ended evt_\S+ → http:\/\/127\.0\.0\.1:\d+\/end: 200 in \d+ ms$/m);
    expect(byNumber.stdout).toContain(": DELIVERED");
    const eventId = byNumber.stdout.match(/evt_\S+/)![0];
    const got = await until(() => receiver.received.find((r) => r.headers["webhook-id"] === eventId), "the sample");
    const event = verifyEvent(got.body, got.headers, c.secret);
    expect(event).toMatchObject({ type: "call.ended", data: { test: true, phoneNumberId: c.phoneNumber.id } });

    const byId = await routekit([
      "trigger",
      "call.started",
      "--number",
      c.phoneNumber.id,
      "--api-key",
      c.apiKey,
      "--json",
    ]);
    expect(byId.code).toBe(0);
    expect(JSON.parse(byId.stdout)).toMatchObject({ eventType: "call.started", status: "DELIVERED" });
  });

  it("trigger: a number not in the account is a usage error; a bad key prints the service's error (exit 1)", async () => {
    const c = await customer();
    const notMine = await routekit(["trigger", "call.ended", "--number", randomUsNumber()], {
      ROUTEKIT_API_KEY: c.apiKey,
    });
    expect(notMine.code).toBe(2);
    expect(notMine.stderr).toContain("is not one of this account's numbers");
    const badType = await routekit(["trigger", "call.teleported", "--number", c.phoneNumber.id], {
      ROUTEKIT_API_KEY: c.apiKey,
    });
    expect(badType.code).toBe(2);
    const badKey = await routekit(["trigger", "call.ended", "--number", c.phoneNumber.id], {
      ROUTEKIT_API_KEY: "rtk_not_a_real_key",
    });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/401 UNAUTHORIZED: .+ \(request \S+\)/);
    const nowhere = await routekit(["trigger", "call.ended", "--number", c.phoneNumber.id], {
      ROUTEKIT_API_KEY: c.apiKey,
      ROUTEKIT_BASE_URL: "http://127.0.0.1:9",
    });
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain("could not be reached");
  });

  it("call places a simulated call from --from to --to and prints the TwiML the backend's answer became", async () => {
    const c = await customer();
    const placed = await routekit(["call", "--from", "+14155550100", "--to", c.phoneNumber.phoneNumber], {
      ROUTEKIT_API_KEY: c.apiKey,
    });
    expect(placed.stderr).toBe("");
    expect(placed.code).toBe(0);
    expect(placed.stdout).toMatch(
      new RegExp(`^call CA\\w+ from \\+14155550100 to \\${c.phoneNumber.phoneNumber}: completed`, "m"),
    );
    expect(placed.stdout).toContain("<Say>CLI call</Say>");
    const callSid = placed.stdout.match(/CA\w+/)![0];
    const started = await until(
      () => receiver.received.find((r) => r.path === "/start" && JSON.parse(r.body).data.callSid === callSid),
      "call.started at the backend",
    );
    expect(verifyEvent(started.body, started.headers, c.secret)).toMatchObject({
      type: "call.started",
      data: { from: "+14155550100", to: c.phoneNumber.phoneNumber, test: true },
    });
    const missing = await routekit(["call", "--from", "+14155550100"], { ROUTEKIT_API_KEY: c.apiKey });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("give --to");
  });
});
