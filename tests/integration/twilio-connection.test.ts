import { hkdfSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newCallSid,
  postSigned,
  simulateInboundCall,
  type TwilioSimulator,
} from "../../src/twilio-simulator/twilio-simulator";
import { encryptSecret } from "../../src/server/crypto/secret-box";
import {
  call,
  newAccount,
  newActiveAccount,
  numberBody as strictNumberBody,
  randomUsNumber,
  seed,
} from "../support/api";
import { type SimulatedTwilioServer, startSimulatedTwilioServer } from "../support/simulated-twilio-server";
import { ago, seeds } from "../support/seed";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

// The Twilio connection end to end (docs/decisions.md §10): a built server of its own whose Twilio is this
// file's simulator (on a port nobody else binds, so it runs beside the engine tests), real HTTP,
// every response checked against the OpenAPI document.
let setup: SimulatedTwilioServer;
let server: SimulatedTwilioServer["server"];
let twilio: TwilioSimulator;
let db: pg.Pool;
let backend: SimulatedTwilioServer["backend"];

beforeAll(async () => {
  setup = await startSimulatedTwilioServer({ name: "it-twilio", database: "twilio", emailTag: "tw" });
  ({ server, twilio, db, backend } = setup);
});
afterAll(() => setup?.close());

const api: SimulatedTwilioServer["api"] = (method, path, opts) => setup.api(method, path, opts);
const customer = () => setup.customer();
const numberBody = (phoneNumber: string, extra: Record<string, unknown> = {}) => setup.numberBody(phoneNumber, extra);

/** A customer connected to a fresh simulated Twilio account that owns `numbers`. */
async function connected(numbers: string[] = []) {
  const c = await customer();
  const tw = twilio.addAccount({ friendlyName: "Acme Voice" });
  for (const n of numbers) twilio.addIncomingNumber(tw.sid, n);
  const res = await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken });
  expect(res.status).toBe(200);
  return { c, tw };
}

const atTwilio = (phoneNumber: string) => twilio.twilioAccounts.byPhoneNumber(phoneNumber)!;

describe("connecting Twilio", () => {
  it("checks the credentials at Twilio, answers the connection, keeps the token only encrypted and never logs it", async () => {
    const c = await customer();
    expect((await c.as("GET", "/api/twilio-connection")).status).toBe(404);
    const tw = twilio.addAccount({ friendlyName: "Acme Voice" });

    const res = await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken });
    expect(res.status).toBe(200);
    expect(res.body.twilioConnection).toEqual({
      accountSid: tw.sid,
      friendlyName: "Acme Voice",
      connectedAt: expect.any(String),
    });
    expect(res.text).not.toContain(tw.authToken);
    const got = await c.as("GET", "/api/twilio-connection");
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);

    const { rows } = await db.query(`SELECT * FROM "TwilioConnection" WHERE "accountId" = $1`, [c.id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(tw.authToken);
    expect(rows[0].authTokenEnc).toMatch(/^v1\./);

    await new Promise((r) => setTimeout(r, 300)); // let the log flush
    expect(readFileSync(server.log, "utf8")).not.toContain(tw.authToken);
  });

  it("refused credentials are 400 PROVIDER_REJECTED with Twilio's code, and nothing is stored", async () => {
    const c = await customer();
    const tw = twilio.addAccount();
    const res = await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: "wrong-token" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("PROVIDER_REJECTED");
    expect(res.body.error.details).toEqual([{ path: "provider", message: expect.stringMatching(/^20003: /) }]);
    const suspended = twilio.addAccount({ status: "suspended" });
    expect(
      (await c.as("PUT", "/api/twilio-connection", { accountSid: suspended.sid, authToken: suspended.authToken })).body
        .error.code,
    ).toBe("PROVIDER_REJECTED");
    expect((await c.as("GET", "/api/twilio-connection")).status).toBe(404);
  });

  it("malformed input is 400 VALIDATION_FAILED naming the field, never a call to Twilio", async () => {
    const c = await customer();
    for (const body of [
      { accountSid: "AC123", authToken: "x" },
      { accountSid: `AC${"0".repeat(32)}`, authToken: "" },
      { accountSid: `AC${"0".repeat(32)}`, authToken: "has space" },
      { accountSid: `AC${"0".repeat(32)}`, authToken: "nul\u0000" },
      {},
    ]) {
      const res = await c.as("PUT", "/api/twilio-connection", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
    expect(
      (await api("PUT", "/api/twilio-connection", { body: { accountSid: `AC${"0".repeat(32)}`, authToken: "t" } }))
        .status,
    ).toBe(401);
  });

  it("Twilio unreachable is 502 PROVIDER_UNAVAILABLE (the strict server's Twilio does not answer)", async () => {
    const acct = await newAccount();
    const res = await acct.as("PUT", "/api/twilio-connection", {
      body: { accountSid: `AC${"a".repeat(32)}`, authToken: "tok" },
    });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe("PROVIDER_UNAVAILABLE");
  });

  it("DELETE disconnects (twice is fine); numbers stay registered but are no longer verified", async () => {
    const n = randomUsNumber();
    const { c } = await connected([n]);
    const reg = await c.as("POST", "/api/phone-numbers", numberBody(n));
    expect(reg.body.phoneNumber).toMatchObject({ verified: true, twilioConfigured: true });
    expect((await c.as("DELETE", "/api/twilio-connection")).body).toEqual({ disconnected: true });
    expect((await c.as("DELETE", "/api/twilio-connection")).body).toEqual({ disconnected: true });
    expect((await c.as("GET", "/api/twilio-connection")).status).toBe(404);
    expect((await c.as("GET", "/api/twilio-connection/numbers")).status).toBe(404);
    expect((await c.as("GET", `/api/phone-numbers/${reg.body.phoneNumber.id}`)).body.phoneNumber).toMatchObject({
      verified: false,
      twilioConfigured: false,
    });
    expect((await db.query(`SELECT 1 FROM "TwilioConnection" WHERE "accountId" = $1`, [c.id])).rowCount).toBe(0);
  });

  it("connecting marks numbers registered before as verified when the Twilio account owns them", async () => {
    const c = await customer();
    const [owned, foreign] = [randomUsNumber(), randomUsNumber()];
    const a = await c.as("POST", "/api/phone-numbers", numberBody(owned));
    const b = await c.as("POST", "/api/phone-numbers", numberBody(foreign));
    expect(a.body.phoneNumber.verified).toBe(false);
    const tw = twilio.addAccount();
    twilio.addIncomingNumber(tw.sid, owned);
    expect((await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken })).status).toBe(
      200,
    );
    expect((await c.as("GET", `/api/phone-numbers/${a.body.phoneNumber.id}`)).body.phoneNumber).toMatchObject({
      verified: true,
      twilioConfigured: false,
    });
    expect((await c.as("GET", `/api/phone-numbers/${b.body.phoneNumber.id}`)).body.phoneNumber.verified).toBe(false);
  });
});

describe("the Twilio account's numbers", () => {
  it("lists every number across Twilio's pages, with registered and configured", async () => {
    const numbers = Array.from({ length: 120 }, () => randomUsNumber());
    const { c } = await connected(numbers);
    twilio.twilioAccounts.maxPageSize = 50;
    try {
      expect((await c.as("POST", "/api/phone-numbers", numberBody(numbers[3]!))).status).toBe(201);
      expect(
        (await c.as("POST", "/api/phone-numbers", numberBody(numbers[4]!, { configureTwilio: false }))).status,
      ).toBe(201);
      const res = await c.as("GET", "/api/twilio-connection/numbers");
      expect(res.status).toBe(200);
      expect(res.body.numbers.map((n: { phoneNumber: string }) => n.phoneNumber)).toEqual(numbers);
      expect(res.body.numbers[3]).toEqual({
        sid: atTwilio(numbers[3]!).sid,
        phoneNumber: numbers[3],
        friendlyName: expect.any(String),
        voiceUrl: c.engineVoiceUrl,
        statusCallback: c.engineVoiceUrl,
        registered: true,
        configured: true,
      });
      expect(res.body.numbers[4]).toMatchObject({ registered: true, configured: false, voiceUrl: null });
      expect(res.body.numbers[5]).toMatchObject({ registered: false, configured: false });
      expect(res.body.subaccounts).toEqual([]);
    } finally {
      twilio.twilioAccounts.maxPageSize = 1000;
    }
  });

  it("names the account's subaccounts, whose numbers need a connection of their own", async () => {
    const { c, tw } = await connected([randomUsNumber()]);
    const sub = twilio.addAccount({ parentSid: tw.sid, friendlyName: "EU numbers" });
    const subNumber = randomUsNumber();
    twilio.addIncomingNumber(sub.sid, subNumber);
    const res = await c.as("GET", "/api/twilio-connection/numbers");
    expect(res.body.subaccounts).toEqual([{ sid: sub.sid, friendlyName: "EU numbers" }]);
    expect(res.body.numbers.map((n: { phoneNumber: string }) => n.phoneNumber)).not.toContain(subNumber);
    expect((await c.as("POST", "/api/phone-numbers", numberBody(subNumber))).body.error.code).toBe("NUMBER_NOT_OWNED");
  });
});

describe("registering a number while connected", () => {
  it("an owned number is registered verified and set up at Twilio: a call to it reaches the customer's backend", async () => {
    const n = randomUsNumber();
    const { c, tw } = await connected([n]);
    const res = await c.as("POST", "/api/phone-numbers", numberBody(n));
    expect(res.status).toBe(201);
    expect(res.body.phoneNumber).toMatchObject({ phoneNumber: n, verified: true, twilioConfigured: true });
    expect(atTwilio(n)).toMatchObject({
      accountSid: tw.sid,
      voiceUrl: c.engineVoiceUrl,
      voiceMethod: "POST",
      statusCallback: c.engineVoiceUrl,
      statusCallbackMethod: "POST",
    });
    const { rows } = await db.query(`SELECT "twilioSid" FROM "PhoneNumber" WHERE id = $1`, [res.body.phoneNumber.id]);
    expect(rows[0].twilioSid).toBe(atTwilio(n).sid);

    const played = await twilio.inboundCall({ to: n, from: "+14155550100", durationSeconds: 61, stepDelayMs: 5 });
    expect(played.answer).toMatchObject({ status: 200 });
    expect(played.answer!.body).toContain("<Say>Hi</Say>");
  });

  it("configureTwilio: false registers it verified and leaves Twilio alone", async () => {
    const n = randomUsNumber();
    const { c } = await connected([n]);
    const res = await c.as("POST", "/api/phone-numbers", numberBody(n, { configureTwilio: false }));
    expect(res.body.phoneNumber).toMatchObject({ verified: true, twilioConfigured: false });
    expect(atTwilio(n)).toMatchObject({ voiceUrl: null, statusCallback: null });
  });

  it("a number the Twilio account does not own is 403 NUMBER_NOT_OWNED, also one of another Twilio account", async () => {
    const other = twilio.addAccount();
    const theirs = randomUsNumber();
    twilio.addIncomingNumber(other.sid, theirs);
    const { c } = await connected([randomUsNumber()]);
    for (const n of [randomUsNumber(), theirs]) {
      const res = await c.as("POST", "/api/phone-numbers", numberBody(n));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("NUMBER_NOT_OWNED");
    }
    expect(atTwilio(theirs).voiceUrl).toBeNull();
    expect((await c.as("GET", "/api/phone-numbers")).body.phoneNumbers).toEqual([]);
  });

  it("takes a number over from another account's unverified registration; a verified one stays 409", async () => {
    const n = randomUsNumber();
    const squatter = await customer();
    const squatted = await squatter.as("POST", "/api/phone-numbers", numberBody(n));
    expect(squatted.status).toBe(201);
    expect(squatted.body.phoneNumber).toMatchObject({ verified: false, twilioConfigured: false });
    const { c, tw } = await connected([n]);

    const res = await c.as("POST", "/api/phone-numbers", numberBody(n));
    expect(res.status).toBe(201);
    expect(res.body.phoneNumber).toMatchObject({ verified: true, twilioConfigured: true });
    expect((await squatter.as("GET", `/api/phone-numbers/${squatted.body.phoneNumber.id}`)).status).toBe(404);
    expect((await squatter.as("GET", "/api/phone-numbers")).body.phoneNumbers).toEqual([]);
    expect((await squatter.as("POST", "/api/phone-numbers", numberBody(n))).body.error.code).toBe("NUMBER_TAKEN");

    // A second Routekit account connected to the same Twilio account proves ownership too, but comes second.
    const second = await customer();
    expect(
      (await second.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken })).status,
    ).toBe(200);
    const again = await second.as("POST", "/api/phone-numbers", numberBody(n));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("NUMBER_TAKEN");
    expect(atTwilio(n).voiceUrl).toBe(c.engineVoiceUrl);
    // The same account registering it twice is 409 as well.
    expect((await c.as("POST", "/api/phone-numbers", numberBody(n))).status).toBe(409);
  });

  it("Twilio refusing the stored credentials while checking ownership is 400 PROVIDER_REJECTED and registers nothing", async () => {
    const n = randomUsNumber();
    const { c } = await connected([n]);
    // Point the stored connection at an account the simulator no longer accepts: the check cannot succeed.
    await seeds(db).update("TwilioConnection", { accountId: c.id }, { accountSid: `AC${"f".repeat(32)}` });
    const res = await c.as("POST", "/api/phone-numbers", numberBody(n));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("PROVIDER_REJECTED");
    expect((await c.as("GET", "/api/phone-numbers")).body.phoneNumbers).toEqual([]);
  });
});

describe("setting up a registered number at Twilio (PATCH configureTwilio)", () => {
  it("proves and points a number registered before connecting, or one that was not repointed", async () => {
    const c = await customer();
    const [owned, foreign] = [randomUsNumber(), randomUsNumber()];
    const a = (await c.as("POST", "/api/phone-numbers", numberBody(owned))).body.phoneNumber;
    const b = (await c.as("POST", "/api/phone-numbers", numberBody(foreign))).body.phoneNumber;
    const early = await c.as("PATCH", `/api/phone-numbers/${a.id}`, { configureTwilio: true });
    expect(early.status).toBe(400);
    expect(early.body.error.details).toEqual([{ path: "configureTwilio", message: expect.any(String) }]);

    const tw = twilio.addAccount();
    twilio.addIncomingNumber(tw.sid, owned);
    await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken });
    const res = await c.as("PATCH", `/api/phone-numbers/${a.id}`, {
      configureTwilio: true,
      onErrorUrl: backend.url("/error"),
    });
    expect(res.status).toBe(200);
    expect(res.body.phoneNumber).toMatchObject({
      verified: true,
      twilioConfigured: true,
      onErrorUrl: backend.url("/error"),
    });
    expect(atTwilio(owned)).toMatchObject({ voiceUrl: c.engineVoiceUrl, statusCallback: c.engineVoiceUrl });

    const notOwned = await c.as("PATCH", `/api/phone-numbers/${b.id}`, {
      configureTwilio: true,
      onErrorUrl: backend.url("/error"),
    });
    expect(notOwned.status).toBe(403);
    expect(notOwned.body.error.code).toBe("NUMBER_NOT_OWNED");
    // Refused at Twilio: nothing of the request was applied.
    expect((await c.as("GET", `/api/phone-numbers/${b.id}`)).body.phoneNumber.onErrorUrl).toBeNull();
    expect((await c.as("PATCH", `/api/phone-numbers/${b.id}`, { configureTwilio: false })).status).toBe(400);
    const stranger = await customer();
    expect((await stranger.as("PATCH", `/api/phone-numbers/${a.id}`, { configureTwilio: true })).body.error.code).toBe(
      "NUMBER_NOT_OWNED",
    );
  });
});

describe("unverified numbers", () => {
  it("are limited to 25 per account, even when registered all at once", async () => {
    const c = await customer();
    const results = await Promise.all(
      Array.from({ length: 30 }, () => c.as("POST", "/api/phone-numbers", numberBody(randomUsNumber()))),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(25);
    expect(statuses.filter((s) => s === 403)).toHaveLength(5);
    expect(results.find((r) => r.status === 403)!.body.error.code).toBe("NUMBER_LIMIT_REACHED");
    expect((await c.as("GET", "/api/phone-numbers")).body.phoneNumbers).toHaveLength(25);

    // Releasing one makes room; numbers proven through a connection do not count.
    const first = (await c.as("GET", "/api/phone-numbers")).body.phoneNumbers[0];
    expect((await c.as("DELETE", `/api/phone-numbers/${first.id}`)).status).toBe(200);
    expect((await c.as("POST", "/api/phone-numbers", numberBody(randomUsNumber()))).status).toBe(201);
    const owned = randomUsNumber();
    const tw = twilio.addAccount();
    twilio.addIncomingNumber(tw.sid, owned);
    expect((await c.as("PUT", "/api/twilio-connection", { accountSid: tw.sid, authToken: tw.authToken })).status).toBe(
      200,
    );
    expect((await c.as("POST", "/api/phone-numbers", numberBody(owned))).status).toBe(201);
  });
});

describe("releasing a number", () => {
  it("clears Twilio's voice URL and status callback when they still point at us", async () => {
    const n = randomUsNumber();
    const { c } = await connected([n]);
    const reg = await c.as("POST", "/api/phone-numbers", numberBody(n));
    expect((await c.as("DELETE", `/api/phone-numbers/${reg.body.phoneNumber.id}`)).body).toEqual({ deleted: true });
    expect(atTwilio(n)).toMatchObject({ voiceUrl: null, statusCallback: null });
  });

  it("leaves a URL the customer has since pointed elsewhere", async () => {
    const n = randomUsNumber();
    const { c } = await connected([n]);
    const reg = await c.as("POST", "/api/phone-numbers", numberBody(n));
    atTwilio(n).voiceUrl = "https://elsewhere.example.com/voice";
    expect((await c.as("DELETE", `/api/phone-numbers/${reg.body.phoneNumber.id}`)).status).toBe(200);
    expect(atTwilio(n)).toMatchObject({ voiceUrl: "https://elsewhere.example.com/voice", statusCallback: null });
  });

  it("also clears a URL still at the previous engine URL during the 24 hours after a rotation, but not an expired one", async () => {
    const [a, b] = [randomUsNumber(), randomUsNumber()];
    const { c } = await connected([a, b]);
    const ra = (await c.as("POST", "/api/phone-numbers", numberBody(a))).body.phoneNumber;
    const rb = (await c.as("POST", "/api/phone-numbers", numberBody(b))).body.phoneNumber;
    const rotated = (await c.as("POST", "/api/account/engine-url")).body.engineVoiceUrl;
    // As if the repoint had not reached Twilio: the numbers still point at the previous URL.
    for (const n of [a, b])
      Object.assign(atTwilio(n), { voiceUrl: c.engineVoiceUrl, statusCallback: c.engineVoiceUrl });
    expect((await c.as("DELETE", `/api/phone-numbers/${ra.id}`)).status).toBe(200);
    expect(atTwilio(a)).toMatchObject({ voiceUrl: null, statusCallback: null });

    await seeds(db).update("Account", { id: c.id }, { previousRoutingTokenExpiresAt: ago("1 minute") });
    expect((await c.as("DELETE", `/api/phone-numbers/${rb.id}`)).status).toBe(200);
    expect(atTwilio(b)).toMatchObject({ voiceUrl: c.engineVoiceUrl, statusCallback: c.engineVoiceUrl });
    expect(rotated).not.toBe(c.engineVoiceUrl);
  });
});

describe("rotating the engine URL", () => {
  it("issues a new URL, repoints configured numbers at Twilio, and the old URL keeps answering for 24 hours", async () => {
    const [configured, manual] = [randomUsNumber(), randomUsNumber()];
    const { c, tw } = await connected([configured, manual]);
    await c.as("POST", "/api/phone-numbers", numberBody(configured));
    await c.as("POST", "/api/phone-numbers", numberBody(manual, { configureTwilio: false }));
    const before = Date.now();

    const res = await c.as("POST", "/api/account/engine-url");
    expect(res.status).toBe(200);
    const { engineVoiceUrl, previousExpiresAt, twilioNumbers } = res.body;
    expect(engineVoiceUrl).toMatch(/\/api\/engine\/voice\/rt_/);
    expect(engineVoiceUrl).not.toBe(c.engineVoiceUrl);
    expect(Date.parse(previousExpiresAt) - before).toBeGreaterThanOrEqual(24 * 3600_000 - 5_000);
    expect(Date.parse(previousExpiresAt) - before).toBeLessThanOrEqual(24 * 3600_000 + 5_000);
    expect(twilioNumbers).toEqual({ repointed: [configured], failed: [] });
    expect((await c.as("GET", "/api/account")).body.account.engineVoiceUrl).toBe(engineVoiceUrl);
    expect(atTwilio(configured)).toMatchObject({ voiceUrl: engineVoiceUrl, statusCallback: engineVoiceUrl });
    expect(atTwilio(manual).voiceUrl).toBeNull();

    // A call through Twilio goes to the new URL; a request still addressed to the old one is served too.
    const played = await twilio.inboundCall({ to: configured, from: "+14155550100", stepDelayMs: 5 });
    expect(played.answer!.body).toContain("<Say>Hi</Say>");
    const old = await simulateInboundCall({
      engineUrl: c.engineVoiceUrl,
      to: configured,
      from: "+14155550100",
      accountSid: tw.sid,
      authToken: tw.authToken,
      stepDelayMs: 5,
    });
    expect(old.answer).toMatchObject({ status: 200 });
    expect(old.answer!.body).toContain("<Say>Hi</Say>");

    // Once the overlap has passed, the old URL is unknown.
    await seeds(db).update("Account", { id: c.id }, { previousRoutingTokenExpiresAt: ago("1 minute") });
    const expired = await postSigned(
      c.engineVoiceUrl,
      {
        CallSid: newCallSid(),
        AccountSid: tw.sid,
        From: "+14155550100",
        To: configured,
        CallStatus: "ringing",
        Direction: "inbound",
      },
      tw.authToken,
    );
    expect(expired.status).toBe(404);
  });

  it("serializes concurrent rotations: the URL left as previous is the one the other rotation issued", async () => {
    const c = await customer();
    const [a, b] = await Promise.all([
      c.as("POST", "/api/account/engine-url"),
      c.as("POST", "/api/account/engine-url"),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const current = (await c.as("GET", "/api/account")).body.account.engineVoiceUrl;
    expect([a.body.engineVoiceUrl, b.body.engineVoiceUrl]).toContain(current);
    const other = current === a.body.engineVoiceUrl ? b.body.engineVoiceUrl : a.body.engineVoiceUrl;
    const { rows } = await db.query(`SELECT "previousRoutingTokenHash" FROM "Account" WHERE id = $1`, [c.id]);
    const { createHash } = await import("node:crypto");
    expect(rows[0].previousRoutingTokenHash).toBe(createHash("sha256").update(other.split("/").pop()!).digest("hex"));
  });

  it("reports numbers Twilio could not repoint, and marks them not configured", async () => {
    const n = randomUsNumber();
    const { c } = await connected([n]);
    const reg = await c.as("POST", "/api/phone-numbers", numberBody(n));
    await seeds(db).update("TwilioConnection", { accountId: c.id }, { accountSid: `AC${"e".repeat(32)}` });
    const res = await c.as("POST", "/api/account/engine-url");
    expect(res.status).toBe(200);
    expect(res.body.twilioNumbers.repointed).toEqual([]);
    expect(res.body.twilioNumbers.failed).toEqual([{ phoneNumber: n, message: expect.stringContaining("Twilio") }]);
    expect((await c.as("GET", `/api/phone-numbers/${reg.body.phoneNumber.id}`)).body.phoneNumber.twilioConfigured).toBe(
      false,
    );
    expect(atTwilio(n).voiceUrl).toBe(c.engineVoiceUrl);
  });
});

describe("when Twilio cannot be reached (the strict server)", () => {
  /** A connection stored as PUT would store it; PUT itself cannot succeed against an unreachable Twilio. */
  async function strictConnected() {
    const acct = await newActiveAccount();
    const key = Buffer.from(hkdfSync("sha256", TEST_AUTH_SECRET, "routekit", "encryption-key", 32));
    await seed().twilioConnection({
      accountId: acct.id,
      accountSid: `AC${"b".repeat(32)}`,
      authTokenEnc: encryptSecret("token", key),
    });
    return acct;
  }

  it("registration is 502 PROVIDER_UNAVAILABLE and registers nothing; the numbers list is 502", async () => {
    const acct = await strictConnected();
    const res = await acct.as("POST", "/api/phone-numbers", { body: strictNumberBody() });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe("PROVIDER_UNAVAILABLE");
    expect((await acct.as("GET", "/api/phone-numbers")).body.phoneNumbers).toEqual([]);
    expect((await acct.as("GET", "/api/twilio-connection/numbers")).status).toBe(502);
    expect((await acct.as("GET", "/api/twilio-connection")).status).toBe(200);
  });

  it("release still succeeds, and rotation reports the numbers it could not repoint", async () => {
    const acct = await strictConnected();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      // Registered and configured at Twilio, as a registration through the connection leaves it.
      const number = await seed().phoneNumber({
        accountId: acct.id,
        phoneNumber: randomUsNumber(),
        verified: true,
        twilioConfigured: true,
        twilioSid: `PN${randomBytes(16).toString("hex")}`,
      });
      ids.push(number.id);
    }
    expect((await acct.as("DELETE", `/api/phone-numbers/${ids[0]}`)).body).toEqual({ deleted: true });
    const res = await acct.as("POST", "/api/account/engine-url");
    expect(res.status).toBe(200);
    expect(res.body.twilioNumbers.failed).toHaveLength(1);
    expect(res.body.twilioNumbers.failed[0].message).toMatch(/could not be reached/);
    expect((await acct.as("GET", `/api/phone-numbers/${ids[1]}`)).body.phoneNumber.twilioConfigured).toBe(false);
  });
});

describe("security", () => {
  it("every Twilio connection route and the rotation need a key", async () => {
    for (const [method, path] of [
      ["PUT", "/api/twilio-connection"],
      ["GET", "/api/twilio-connection"],
      ["DELETE", "/api/twilio-connection"],
      ["GET", "/api/twilio-connection/numbers"],
      ["POST", "/api/account/engine-url"],
    ] as const) {
      const res = await api(method, path, { token: "rtk_not_a_real_key" });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it("one account's connection is invisible to another, and a refused token is never logged either", async () => {
    const { c } = await connected();
    const other = await customer();
    expect((await other.as("GET", "/api/twilio-connection")).status).toBe(404);
    expect((await c.as("GET", "/api/twilio-connection")).status).toBe(200);
    const wrong = `wrong-${randomBytes(8).toString("hex")}`;
    await other.as("PUT", "/api/twilio-connection", { accountSid: `AC${"c".repeat(32)}`, authToken: wrong });
    await new Promise((r) => setTimeout(r, 300));
    expect(readFileSync(server.log, "utf8")).not.toContain(wrong);
  });
});

// The route is in the shared contract too.
it("the strict server documents the new routes", async () => {
  const doc = await (await call("GET", "/api/openapi.json")).body;
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining(["/api/twilio-connection", "/api/twilio-connection/numbers", "/api/account/engine-url"]),
  );
});
