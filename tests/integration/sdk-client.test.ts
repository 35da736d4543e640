import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  OPERATIONS,
  PermissionError,
  type PhoneNumbersCreateResponse,
  RateLimitError,
  type Routekit,
  RoutekitConnectionError,
  RoutekitError,
  answer,
  pause,
  say,
  ValidationError,
} from "@routekit/sdk";
import { generateSync } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUsNumber, uniqueEmail } from "../support/api";
import { seeds } from "../support/seed";
import { type CalledRoutes, documentedRoutes, sdkClient, useTemplates } from "../support/sdk";
import { startSimulatedTwilioServer, type SimulatedTwilioServer } from "../support/simulated-twilio-server";
import { until } from "../support/until";

// The SDK against a built server of this file's own whose Twilio is a simulator (docs/decisions.md §19): every
// route of the served document is called once through `new Routekit(…)` (the last test fails on any route no
// test called), answers are checked against the document, and errors arrive as typed classes.
let setup: SimulatedTwilioServer;
let routes: string[];
const called: CalledRoutes = new Set();
const HOLD_MS = 20_000;

beforeAll(async () => {
  setup = await startSimulatedTwilioServer({ name: "it-sdk", database: "sdk", emailTag: "sdk" });
  routes = await documentedRoutes(setup.server.baseUrl);
  useTemplates(routes);
});
afterAll(() => setup?.close());

const client = (apiKey?: string, ip?: string) => sdkClient({ baseUrl: setup.server.baseUrl, apiKey, ip, called });

/** A new paid account made through the SDK, with a key client and the person's login token. */
async function newCustomer() {
  const anonymous = client();
  const email = uniqueEmail("sdk");
  const password = "correct horse battery";
  const registered = await anonymous.auth.register({ email, password, companyName: "SDK Co" });
  await seeds(setup.db).update("Account", { id: registered.account.id }, { status: "ACTIVE" });
  return { ...registered, email, password, rk: client(registered.apiKey) };
}

async function liveOutbound(rk: Routekit) {
  const tw = setup.twilio.addAccount();
  const from = randomUsNumber();
  await rk.phoneNumbers.create(setup.numberBody(from));
  setup.twilio.planNextCall({ holdMs: HOLD_MS });
  const { callSid } = await rk.outbound.create({
    from,
    to: randomUsNumber(),
    onCallStartUrl: setup.backend.url("/start"),
    onCallEndUrl: setup.backend.url("/end"),
    providerAccountSid: tw.sid,
    providerAuthToken: tw.authToken,
  });
  await until(async () => {
    const { call } = await rk.calls.get(callSid);
    return call.status === "in-progress" && setup.twilio.control.get(callSid)?.status === "in-progress";
  }, `outbound call ${callSid} in progress`);
  return callSid;
}

describe("the client", { timeout: 60_000 }, () => {
  it("exposes a method for every operation of the served document, named by its operationId", async () => {
    const rk = client();
    const served = new Set(routes);
    const generated = Object.entries(OPERATIONS).map(([id, op]) => {
      const [group, name] = id.split(".") as [keyof Routekit, string];
      expect(typeof (rk[group] as Record<string, unknown>)[name], id).toBe("function");
      return `${op.method} ${op.path}`;
    });
    // The committed generation matches the document this server serves: nothing missing, nothing extra.
    expect(new Set(generated)).toEqual(served);
  });

  it("registers, logs in and reads health without a key; a bad key is an AuthenticationError with the envelope's code", async () => {
    const anonymous = client();
    expect(await anonymous.system.health()).toMatchObject({ status: "ok" });
    expect(await anonymous.system.ready()).toMatchObject({ status: "ready" });
    const c = await newCustomer();
    const login = await anonymous.auth.login({ email: c.email, password: c.password });
    expect(login.token).toEqual(expect.any(String));

    const error = await client("rtk_not_a_real_key")
      .account.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toBeInstanceOf(RoutekitError);
    expect(error).toMatchObject({ status: 401, code: "UNAUTHORIZED", requestId: expect.any(String) });
  });

  it("an address nobody answers is a RoutekitConnectionError, never a RoutekitError", async () => {
    const nowhere = sdkClient({ baseUrl: "http://127.0.0.1:9" });
    const error = await nowhere.system.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RoutekitConnectionError);
    expect(error).not.toBeInstanceOf(RoutekitError);
  });
});

describe("the account and its settings", { timeout: 60_000 }, () => {
  it("reads and changes the account, its limits, alerts, keys, usage and billing", async () => {
    const { rk, account } = await newCustomer();
    expect((await rk.account.get()).account.id).toBe(account.id);
    const { webhookSecret } = await rk.account.rotateWebhookSecret();
    expect(webhookSecret).toMatch(/^whsec_/);
    expect((await rk.account.rotateEngineUrl()).engineVoiceUrl).toContain("/engine/");
    expect((await rk.account.limits()).limits).toBeDefined();
    expect((await rk.account.putLimits({ maxConcurrentCalls: 3 })).limits.maxConcurrentCalls).toBe(3);
    const settings = await rk.alerts.settings();
    expect(settings.email["alert.endpoint_failing"]).toBe(true);
    const put = await rk.alerts.putSettings({ email: { "alert.endpoint_failing": false } });
    expect(put.email["alert.endpoint_failing"]).toBe(false);
    expect((await rk.alerts.list({ limit: 5 })).alerts).toEqual([]);
    expect((await rk.auditLog.list({ limit: 5 })).entries.length).toBeGreaterThan(0);
    expect((await rk.eventTypes.list()).eventTypes.length).toBeGreaterThan(10);
    expect((await rk.usage.list({ limit: 5 })).records).toEqual([]);
    expect(await rk.usage.current()).toBeDefined();
    expect((await rk.usage.daily({ days: 3 })).days).toHaveLength(3);
    expect((await rk.billing.subscription()).status).toBeDefined();
    expect((await rk.billing.checkout()).url).toMatch(/^http/);
    expect((await rk.billing.portal()).url).toMatch(/^http/);

    const created = await rk.apiKeys.create({ label: "sdk", scope: "read-only" }, { idempotencyKey: "sdk-key-1" });
    const again = await rk.apiKeys.create({ label: "sdk", scope: "read-only" }, { idempotencyKey: "sdk-key-1" });
    expect(again.id).toBe(created.id);
    expect((await rk.apiKeys.list()).apiKeys.map((k) => k.id)).toContain(created.id);
    // A read-only key cannot write: PermissionError, 403.
    const readOnly = client(created.key);
    await expect(readOnly.account.rotateEngineUrl()).rejects.toBeInstanceOf(PermissionError);
    expect(await rk.apiKeys.revoke(created.id)).toEqual({ revoked: true });
    await expect(readOnly.account.get()).rejects.toMatchObject({ status: 401 });
  });

  it("turns two-factor sign-in on and off, and signs out, with a login token", async () => {
    const c = await newCustomer();
    const rk = client((await client().auth.login({ email: c.email, password: c.password })).token);
    const { secret } = await rk.twoFactor.begin();
    const code = () => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) });
    const { recoveryCodes } = await rk.twoFactor.confirm({ code: code() });
    expect(recoveryCodes).toHaveLength(10);
    const fresh = await rk.twoFactor.regenerateRecoveryCodes({ code: recoveryCodes[0]! });
    expect(fresh.recoveryCodes).toHaveLength(10);
    expect((await rk.twoFactor.setPolicy({ required: true })).required).toBe(true);
    await expect(client().auth.login({ email: c.email, password: c.password })).rejects.toMatchObject({
      status: 401,
      code: "TWO_FACTOR_REQUIRED",
    });
    await rk.twoFactor.setPolicy({ required: false });
    await rk.twoFactor.disable({ code: fresh.recoveryCodes[0]! });
    expect(await rk.auth.logout()).toBeDefined();
    await expect(rk.account.get()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("invites a member, changes their role and removes them; invitations are revoked; a made-up token is refused", async () => {
    const { rk } = await newCustomer();
    const invited = await rk.members.invite({ email: uniqueEmail("sdk-invitee"), role: "developer" });
    expect((await rk.members.invitations()).invitations.map((i) => i.id)).toContain(invited.invitation.id);
    expect(await rk.members.revokeInvitation(invited.invitation.id)).toBeDefined();

    // A person with a login of their own, added as a viewer, then made a developer and removed.
    const other = await newCustomer();
    const {
      rows: [user],
    } = await setup.db.query<{ id: string }>(`SELECT id FROM "User" WHERE email = $1`, [other.email]);
    await seeds(setup.db).membership({
      accountId: (await rk.account.get()).account.id,
      userId: user!.id,
      role: "viewer",
    });
    const members = (await rk.members.list()).members;
    const member = members.find((m) => m.email === other.email)!;
    expect((await rk.members.changeRole(member.id, { role: "developer" })).member.role).toBe("developer");
    expect(await rk.members.remove(member.id)).toBeDefined();

    const anonymous = client();
    for (const accept of [anonymous.members.acceptWithSignUp, anonymous.members.acceptWithSignIn]) {
      const error = await accept({ token: "made-up-token", password: "password123" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RoutekitError);
      expect([400, 404]).toContain((error as RoutekitError).status);
    }
  });
});

describe("numbers, Twilio, calls and live commands", { timeout: 60_000 }, () => {
  let c: Awaited<ReturnType<typeof newCustomer>>;
  let number: PhoneNumbersCreateResponse["phoneNumber"];

  it("connects Twilio, registers a number, reads, changes and simulates a call to it", async () => {
    c = await newCustomer();
    const { rk } = c;
    const tw = setup.twilio.addAccount({ friendlyName: "SDK Voice" });
    const e164 = randomUsNumber();
    setup.twilio.addIncomingNumber(tw.sid, e164);
    await expect(rk.twilioConnection.connect({ accountSid: tw.sid, authToken: "wrong" })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(
      (await rk.twilioConnection.connect({ accountSid: tw.sid, authToken: tw.authToken })).twilioConnection.accountSid,
    ).toBe(tw.sid);
    expect((await rk.twilioConnection.get()).twilioConnection.accountSid).toBe(tw.sid);
    expect((await rk.twilioConnection.numbers()).numbers.map((n) => n.phoneNumber)).toContain(e164);

    number = (await rk.phoneNumbers.create(setup.numberBody(e164), { idempotencyKey: `sdk-${e164}` })).phoneNumber;
    const taken = await c.rk.phoneNumbers.create(setup.numberBody(e164)).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(ConflictError);
    expect((await rk.phoneNumbers.list()).phoneNumbers.map((n) => n.id)).toEqual([number.id]);
    expect((await rk.phoneNumbers.get(number.id)).phoneNumber.phoneNumber).toBe(e164);
    const updated = await rk.phoneNumbers.update(number.id, { answerTimeoutMs: 2000 });
    expect(updated.phoneNumber.answerTimeoutMs).toBe(2000);
    expect(await rk.phoneNumbers.fallbackPreview(number.id)).toBeDefined();
    expect((await rk.lookup.find({ q: e164 })).match).toEqual({
      kind: "number",
      phoneNumberId: number.id,
      phoneNumber: e164,
    });

    const bad = await rk.phoneNumbers.update(number.id, { onCallStartUrl: "not a url" }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).details.map((d) => d.path)).toContain("onCallStartUrl");
    await expect(rk.phoneNumbers.get("cmnotanumber0000000000000")).rejects.toBeInstanceOf(NotFoundError);

    const simulated = await rk.phoneNumbers.simulateCall(number.id, { from: "+14155550100" });
    expect(simulated.twiml).toContain("<Say>Hi</Say>");
    const { calls } = await rk.calls.list({ test: "true" });
    expect(calls.map((x) => x.callSid)).toContain(simulated.call.callSid);
    expect((await rk.calls.get(simulated.call.callSid)).call.test).toBe(true);

    // docs/decisions.md §23: a shadow set through update, its report, and the simulated call replayed (its
    // call.started is logged just after the answer, so the replay is tried until the log has it).
    const backendStart = setup.backend.url("/start");
    const shadowed = await rk.phoneNumbers.update(number.id, { shadow: { onCallStartUrl: backendStart } });
    expect(shadowed.phoneNumber.shadow).toMatchObject({ onCallStartUrl: backendStart, sampleRate: 1, until: null });
    const shadowReport = await rk.phoneNumbers.shadowReport(number.id, {});
    expect(shadowReport.report).toMatchObject({ mirrored: expect.any(Number), skipped: 0 });
    const replayed = await until(
      () =>
        rk.calls
          .replay(simulated.call.callSid, { onCallStartUrl: backendStart })
          .catch((e: unknown) => (e instanceof NotFoundError ? null : Promise.reject(e))),
      "the simulated call's call.started in the delivery log",
    );
    expect(replayed.replay).toMatchObject({ outcome: "same", replayed: { answer: "xml" } });
    await rk.phoneNumbers.update(number.id, { shadow: null });
    // A finished call takes no command: 409 CALL_NOT_LIVE.
    await expect(rk.calls.hangup(simulated.call.callSid)).rejects.toMatchObject({ status: 409, code: "CALL_NOT_LIVE" });
  });

  it("records, redirects and hangs up a live call, and transfers another", async () => {
    // Calls placed on their own credentials, by an account without a Twilio connection.
    const { rk } = await newCustomer();
    const callSid = await liveOutbound(rk);
    expect((await rk.calls.recording(callSid, { action: "start" })).recording?.status).toBe("in-progress");
    const redirected = await rk.calls.redirect(callSid, answer(say("Please hold"), pause(30)));
    expect(redirected.call.timeline.some((e) => e.type === "command")).toBe(true);
    expect((await rk.calls.hangup(callSid, { idempotencyKey: `hangup-${callSid}` })).call.callSid).toBe(callSid);

    const second = await liveOutbound(rk);
    setup.twilio.control.planNextDial({ status: "completed", durationSeconds: 5 });
    const transferred = await rk.calls.transfer(second, { to: randomUsNumber(), whisper: "From the SDK" });
    expect(transferred.call.callSid).toBe(second);
  });

  it("lists, reads, retries, replays and sends test deliveries; manages webhook endpoints; deletes the number and disconnects", async () => {
    const { rk } = c;
    const { delivery } = await rk.webhookDeliveries.sendTest({ phoneNumberId: number.id, type: "call.ended" });
    expect(delivery.status).toBe("DELIVERED");
    expect((await rk.webhookDeliveries.list({ limit: 50 })).deliveries.map((d) => d.id)).toContain(delivery.id);
    expect((await rk.webhookDeliveries.get(delivery.id)).delivery.id).toBe(delivery.id);
    expect((await rk.webhookDeliveries.retry(delivery.id)).delivery.id).toBe(delivery.id);
    const since = new Date(Date.now() - 60_000).toISOString();
    expect(await rk.webhookDeliveries.replay({ since })).toMatchObject({ queued: expect.any(Number) });
    const tooSoon = await rk.webhookDeliveries.replay({ since }).catch((e: unknown) => e);
    expect(tooSoon).toBeInstanceOf(RateLimitError);
    expect((tooSoon as RateLimitError).retryAfter).toBeGreaterThan(0);

    const { webhookEndpoint } = await rk.webhookEndpoints.create({
      url: setup.backend.url("/endpoint"),
      eventTypes: ["call.ended"],
    });
    expect(webhookEndpoint.secret).toMatch(/^whsec_/);
    expect((await rk.webhookEndpoints.list()).webhookEndpoints).toHaveLength(1);
    expect((await rk.webhookEndpoints.get(webhookEndpoint.id)).webhookEndpoint.id).toBe(webhookEndpoint.id);
    expect((await rk.webhookEndpoints.update(webhookEndpoint.id, { enabled: false })).webhookEndpoint.enabled).toBe(
      false,
    );
    expect((await rk.webhookEndpoints.rotateSecret(webhookEndpoint.id)).secret).toMatch(/^whsec_/);
    expect(await rk.webhookEndpoints.delete(webhookEndpoint.id)).toBeDefined();

    expect(await rk.phoneNumbers.delete(number.id)).toEqual({ deleted: true });
    expect(await rk.twilioConnection.disconnect()).toBeDefined();
  });
});

describe("coverage", () => {
  it("every route of the served document was called through the SDK by this file", () => {
    const missing = routes.filter((r) => !called.has(r));
    expect(missing).toEqual([]);
  });
});
