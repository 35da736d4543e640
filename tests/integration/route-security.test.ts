import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { restRoutes, type RestRoute } from "../../src/server/rest/routes";
import {
  baseUrlOf,
  call,
  newAccount,
  newActiveAccount,
  numberBody,
  randomIp,
  sql,
  suspend,
  type ApiResponse,
  type TestAccount,
  type TestMember,
  newMember,
  seed,
} from "../support/api";
import { ROLES, roleAllows } from "../../src/shared/roles";
import { rawRequest } from "../support/raw-http";
import { sessionCookie, trpc } from "../support/trpc";

/**
 * The security suite, generated from the REST route table (as Unkey does per
 * route): every authenticated route refuses no credential, a malformed key and
 * a revoked key; never shows another tenant's resource; and answers a
 * suspended and an unpaid account as docs/decisions.md §4 says. A new route joins
 * every case by being in the table, and a route added without the guard fails here.
 */
const key = (r: Pick<RestRoute, "method" | "path">) => `${r.method} ${r.path}`;
const authenticated = restRoutes.filter((r) => r.auth);

// docs/decisions.md §4, as each route's contract reads it from the builder that enforces it (builder-traits.ts):
// INACTIVE is 402 on `paid` routes; SUSPENDED is 403 on `paid` and `unsuspended` ones.
const NEEDS_PAYMENT = new Set(restRoutes.filter((r) => r.standing === "paid").map(key));
const STANDING_CODES = ["ACCOUNT_SUSPENDED", "PAYMENT_REQUIRED", "UNAUTHORIZED"];
const REFUSED_WHEN_SUSPENDED = new Set(restRoutes.filter((r) => r.standing !== "any").map(key));

function expectEnvelope(res: ApiResponse, status: number, code: string, what: string): void {
  const seen = `${what}: answered ${res.status} ${res.text.slice(0, 200)}`;
  expect(res.status, seen).toBe(status);
  expect(res.body?.error?.code, seen).toBe(code);
  expect(typeof res.body.error.message, what).toBe("string");
  expect(res.headers.get("x-request-id"), what).toBeTruthy();
}

function pathWith(route: RestRoute, value: string): string {
  return route.path.replace(/:\w+/g, encodeURIComponent(value));
}

const noBody = (route: RestRoute) => (route.method === "GET" || route.method === "DELETE" ? undefined : {});

describe("route security, for every route of the table", () => {
  it("needs a credential everywhere but register, login, accepting an invitation, health and readiness", () => {
    expect(
      restRoutes
        .filter((r) => !r.auth)
        .map(key)
        .sort(),
    ).toEqual([
      "GET /api/health",
      "GET /api/ready",
      "POST /api/auth/login",
      "POST /api/auth/register",
      // The mailed invitation's link is the credential (docs/decisions.md §18).
      "POST /api/invitations/accept/sign-in",
      "POST /api/invitations/accept/sign-up",
    ]);
    expect(authenticated.length).toBeGreaterThan(25);
  });

  describe.each(authenticated.map((r) => [key(r), r] as const))("%s", (_name, route) => {
    const path = pathWith(route, "cmdoesnotexist000000000000");

    it("refuses no credential, a malformed key, a malformed token and a revoked key with 401", async () => {
      expectEnvelope(await call(route.method, path, { body: noBody(route) }), 401, "UNAUTHORIZED", "no credential");
      // A key with a bad checksum is refused before any look-up; a JWT that is not one likewise.
      const malformed = `rtk_${randomBytes(32).toString("base64url").replace(/[-_]/g, "a")}`;
      expectEnvelope(
        await call(route.method, path, { token: malformed, body: noBody(route) }),
        401,
        "UNAUTHORIZED",
        "malformed key",
      );
      expectEnvelope(
        await call(route.method, path, { token: "not.a.jwt", body: noBody(route) }),
        401,
        "UNAUTHORIZED",
        "malformed token",
      );
      expectEnvelope(
        await call(route.method, path, { token: await revokedKey(), body: noBody(route) }),
        401,
        "UNAUTHORIZED",
        "revoked key",
      );
    });

    it("refuses a closed account's key and its login tokens from before and after the closing with 401 (docs/decisions.md §20)", async () => {
      const closed = await closedAccount();
      for (const [what, token] of Object.entries(closed))
        expectEnvelope(await call(route.method, path, { token, body: noBody(route) }), 401, "UNAUTHORIZED", what);
    });
  });
});

let closing: Promise<Record<string, string>> | undefined;
/**
 * One closed account's credentials (issue #22, finding 1): its API key, a login
 * token from before the closing, and whatever logging in with its alias and
 * old password gives afterwards (it must give nothing).
 */
function closedAccount(): Promise<Record<string, string>> {
  return (closing ??= (async () => {
    const owner = await newAccount();
    const before = await call("POST", "/api/auth/login", { body: { email: owner.email, password: owner.password } });
    expect(before.status).toBe(200);
    const closed = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: owner.email, password: owner.password },
      { cookie: await sessionCookie(owner.email, owner.password) },
    );
    expect(closed.data).toEqual({ deleted: true });
    const after = await call("POST", "/api/auth/login", {
      body: { email: `deleted-${owner.id}@deleted.invalid`, password: owner.password },
    });
    expectEnvelope(after, 401, "UNAUTHORIZED", "log-in with the closed account's alias");
    return {
      "closed account's key": owner.apiKey,
      "closed account's login token": before.body.token,
      "closed account's registration token": owner.token,
    };
  })());
}

let revoked: Promise<string> | undefined;
/** One account's key, revoked: refused on every route from the next request on. */
function revokedKey(): Promise<string> {
  return (revoked ??= (async () => {
    const owner = await newAccount();
    const created = await owner.as("POST", "/api/api-keys", { body: { label: "to revoke" } });
    expect(created.status).toBe(201);
    expect((await owner.as("DELETE", `/api/api-keys/${created.body.id}`)).status).toBe(200);
    return created.body.key as string;
  })());
}

/**
 * Another tenant's resource for every path parameter of the table: a route with
 * a parameter and no entry here fails, so a new one cannot skip the check.
 * `leak` is a value of the owner's that must never reach the other tenant.
 */
type Foreign = {
  id: string;
  leak: string;
  expect: { status: number; code: string };
  stillThere: () => Promise<void>;
  /** A body the route would accept, so only ownership can refuse it (default: none). */
  body?: unknown;
};
const NOT_FOUND = { status: 404, code: "NOT_FOUND" };

async function foreignResources(owner: TestAccount): Promise<Record<string, Foreign>> {
  const keys = await owner.as("GET", "/api/api-keys");
  const apiKey = keys.body.apiKeys[0];
  const number = await owner.as("POST", "/api/phone-numbers", { body: numberBody() });
  expect(number.status).toBe(201);
  const phone = number.body.phoneNumber;

  const callSid = `CA${randomBytes(16).toString("hex")}`;
  await seed().call({
    callSid,
    accountId: owner.id,
    phoneNumberId: phone.id,
    fromNumber: "+14155550177",
    toNumber: phone.phoneNumber,
    status: "completed",
    statusRank: 10,
    onCallStartUrl: phone.onCallStartUrl,
    onCallEndUrl: phone.onCallEndUrl,
  });
  const eventId = `evt_sec${randomBytes(8).toString("hex")}`;
  const { id: deliveryId } = await seed().webhookDelivery({
    accountId: owner.id,
    eventId,
    eventType: "call.ended",
    callSid,
    url: phone.onCallEndUrl,
    status: "FAILED",
    attemptCount: 8,
  });
  const delivery = async () => {
    const res = await owner.as("GET", `/api/webhook-deliveries/${deliveryId}`);
    expect(res.status).toBe(200);
    // Nobody else's retry queued it again.
    expect(res.body.delivery).toMatchObject({ status: "FAILED", attemptCount: 8, nextAttemptAt: null });
  };
  // docs/decisions.md §15: another account's webhook endpoint is 404; its URL and secret never show, nothing changes.
  const created = await owner.as("POST", "/api/webhook-endpoints", {
    body: { url: `https://hooks.example.com/${randomBytes(6).toString("hex")}`, eventTypes: ["*"] },
  });
  expect(created.status).toBe(201);
  const endpoint = created.body.webhookEndpoint;
  const endpointResource = (body?: unknown): Foreign => ({
    id: endpoint.id,
    leak: endpoint.url,
    expect: NOT_FOUND,
    body,
    stillThere: async () => {
      const res = await owner.as("GET", `/api/webhook-endpoints/${endpoint.id}`);
      expect(res.status).toBe(200);
      expect(res.body.webhookEndpoint).toEqual(endpoint);
    },
  });
  const numberResource: Foreign = {
    id: phone.id,
    leak: phone.phoneNumber,
    // docs/decisions.md §6: another account's number is 403 NUMBER_NOT_OWNED, and nothing of it is shown.
    expect: { status: 403, code: "NUMBER_NOT_OWNED" },
    stillThere: async () => {
      const res = await owner.as("GET", `/api/phone-numbers/${phone.id}`);
      expect(res.status).toBe(200);
      expect(res.body.phoneNumber).toEqual(phone);
    },
  };
  // docs/decisions.md §18: another account's member or invitation is 404; nobody's role or link changes.
  const [ownerMember] = (await owner.as("GET", "/api/members")).body.members;
  const invitedEmail = `invited-${randomBytes(6).toString("hex")}@example.com`;
  const invited = await owner.as("POST", "/api/members/invitations", { body: { email: invitedEmail, role: "viewer" } });
  expect(invited.status).toBe(201);
  const memberResource = (body?: unknown): Foreign => ({
    id: ownerMember.id,
    leak: owner.email,
    expect: NOT_FOUND,
    body,
    stillThere: async () =>
      expect((await owner.as("GET", "/api/members")).body.members).toEqual([
        expect.objectContaining({ id: ownerMember.id, role: "owner" }),
      ]),
  });
  return {
    "PATCH /api/members/:id": memberResource({ role: "viewer" }),
    "DELETE /api/members/:id": memberResource(),
    "DELETE /api/members/invitations/:id": {
      id: invited.body.invitation.id,
      leak: invitedEmail,
      expect: NOT_FOUND,
      stillThere: async () =>
        expect((await owner.as("GET", "/api/members/invitations")).body.invitations).toEqual([
          expect.objectContaining({ id: invited.body.invitation.id }),
        ]),
    },
    "DELETE /api/api-keys/:id": {
      id: apiKey.id,
      leak: apiKey.keyPrefix,
      expect: NOT_FOUND,
      stillThere: async () => expect((await owner.as("GET", "/api/account")).status).toBe(200),
    },
    "GET /api/phone-numbers/:id": numberResource,
    "GET /api/phone-numbers/:id/fallback-preview": numberResource,
    "PATCH /api/phone-numbers/:id": numberResource,
    "DELETE /api/phone-numbers/:id": numberResource,
    // docs/decisions.md §21: simulating a call to another account's number finds nothing to call.
    "POST /api/phone-numbers/:id/simulate-call": { ...numberResource, expect: NOT_FOUND },
    // docs/decisions.md §23: another account's number's shadow report is refused like the number itself.
    "GET /api/phone-numbers/:id/shadow": numberResource,
    // docs/decisions.md §23: replaying another account's call is 404, and sends nothing.
    "POST /api/calls/:callSid/replay": {
      id: callSid,
      leak: "+14155550177",
      expect: NOT_FOUND,
      body: { onCallStartUrl: "https://v2.example.com/start" },
      stillThere: async () => expect((await owner.as("GET", `/api/calls/${callSid}`)).status).toBe(200),
    },
    "GET /api/calls/:callSid": {
      id: callSid,
      leak: "+14155550177",
      expect: NOT_FOUND,
      stillThere: async () => expect((await owner.as("GET", `/api/calls/${callSid}`)).status).toBe(200),
    },
    // docs/decisions.md §13: live commands on another account's call are 404 and reach Twilio with nothing.
    ...Object.fromEntries(
      (
        [
          ["hangup", undefined],
          ["redirect", { actions: [{ hangup: true }] }],
          ["transfer", { to: "+14155550123" }],
          ["recording", { action: "start" }],
        ] as const
      ).map(([command, body]) => [
        `POST /api/calls/:callSid/${command}`,
        {
          id: callSid,
          leak: "+14155550177",
          expect: NOT_FOUND,
          body,
          stillThere: async () => expect((await owner.as("GET", `/api/calls/${callSid}`)).status).toBe(200),
        },
      ]),
    ),
    "GET /api/webhook-deliveries/:id": { id: deliveryId, leak: eventId, expect: NOT_FOUND, stillThere: delivery },
    "GET /api/webhook-endpoints/:id": endpointResource(),
    "PATCH /api/webhook-endpoints/:id": endpointResource({ enabled: false, eventTypes: ["call.ended"] }),
    "DELETE /api/webhook-endpoints/:id": endpointResource(),
    "POST /api/webhook-endpoints/:id/secret": endpointResource(),
    "POST /api/webhook-deliveries/:id/retry": {
      id: deliveryId,
      leak: eventId,
      expect: NOT_FOUND,
      stillThere: delivery,
    },
  };
}

describe("another tenant's resources", () => {
  const withParam = authenticated.filter((r) => r.path.includes(":"));
  let owner: TestAccount;
  let intruder: TestAccount;
  let foreign: Record<string, Foreign>;

  beforeAll(async () => {
    [owner, intruder] = await Promise.all([newActiveAccount(), newActiveAccount()]);
    foreign = await foreignResources(owner);
  });

  it("has a foreign resource for every route with a path parameter", () => {
    expect(withParam.map(key).filter((k) => !foreign[k])).toEqual([]);
  });

  it.each(withParam.map((r) => [key(r), r] as const))(
    "%s: another tenant's id is refused, shows nothing of it, and changes nothing",
    async (name, route) => {
      const target = foreign[name]!;
      const body = target.body ?? (route.method === "PATCH" ? { onErrorUrl: null } : noBody(route));
      const res = await intruder.as(route.method, pathWith(route, target.id), { body });
      expectEnvelope(res, target.expect.status, target.expect.code, name);
      expect(res.text).not.toContain(target.leak);
      await target.stillThere();
    },
  );
});

describe("account standing (docs/decisions.md §4)", () => {
  it("is declared on the contract: buying numbers and placing (or simulating) calls need payment, changing numbers and live calls an unsuspended account", () => {
    expect([...NEEDS_PAYMENT].sort()).toEqual([
      // docs/decisions.md §23: a replay sends a request on the account's behalf, like a simulated call.
      "POST /api/calls/:callSid/replay",
      "POST /api/outbound",
      "POST /api/phone-numbers",
      "POST /api/phone-numbers/:id/simulate-call",
    ]);
    expect([...REFUSED_WHEN_SUSPENDED].sort()).toEqual([
      "DELETE /api/phone-numbers/:id",
      "PATCH /api/phone-numbers/:id",
      "POST /api/calls/:callSid/hangup",
      "POST /api/calls/:callSid/recording",
      "POST /api/calls/:callSid/redirect",
      "POST /api/calls/:callSid/replay",
      "POST /api/calls/:callSid/transfer",
      "POST /api/outbound",
      "POST /api/phone-numbers",
      "POST /api/phone-numbers/:id/simulate-call",
    ]);
  });

  let suspended: TestAccount;
  let unpaid: TestAccount;
  let suspendedNumberId: string;

  beforeAll(async () => {
    [suspended, unpaid] = await Promise.all([newActiveAccount(), newAccount()]);
    const number = await suspended.as("POST", "/api/phone-numbers", { body: numberBody() });
    expect(number.status).toBe(201);
    suspendedNumberId = number.body.phoneNumber.id;
    await suspend(suspended);
  });

  /** A request the route would accept from an account in good standing, so only standing can refuse it. */
  function plausible(route: RestRoute, numberId: string): { path: string; body: unknown } {
    const path = pathWith(route, route.path.includes("phone-numbers/:id") ? numberId : "cmdoesnotexist000000000000");
    if (key(route) === "POST /api/phone-numbers") return { path, body: numberBody() };
    if (key(route) === "POST /api/outbound") {
      return {
        path,
        body: {
          to: "+14155550100",
          from: "+14155550101",
          onCallStartUrl: "https://api.example.com/start",
          onCallEndUrl: "https://api.example.com/end",
          providerAccountSid: `AC${"0".repeat(32)}`,
          providerAuthToken: "token",
        },
      };
    }
    if (route.method === "PATCH") return { path, body: { onErrorUrl: null } };
    return { path, body: noBody(route) };
  }

  it.each(authenticated.map((r) => [key(r), r] as const))(
    "%s answers a suspended account as docs/decisions.md §4 says",
    async (name, route) => {
      const { path, body } = plausible(route, suspendedNumberId);
      const res = await suspended.as(route.method, path, { body });
      if (REFUSED_WHEN_SUSPENDED.has(name)) expectEnvelope(res, 403, "ACCOUNT_SUSPENDED", name);
      else {
        // Reads, keys and billing keep working so the customer can fix payment.
        expect(STANDING_CODES, `${name} answered ${res.status} ${res.text.slice(0, 200)}`).not.toContain(
          res.body?.error?.code,
        );
        expect(res.status, name).toBeLessThan(500);
      }
    },
  );

  it.each(authenticated.map((r) => [key(r), r] as const))(
    "%s answers an unpaid account as docs/decisions.md §4 says",
    async (name, route) => {
      const { path, body } = plausible(route, "cmdoesnotexist000000000000");
      const res = await unpaid.as(route.method, path, { body });
      if (NEEDS_PAYMENT.has(name)) expectEnvelope(res, 402, "PAYMENT_REQUIRED", name);
      else {
        expect(STANDING_CODES, `${name} answered ${res.status} ${res.text.slice(0, 200)}`).not.toContain(
          res.body?.error?.code,
        );
        expect(res.status, name).toBeLessThan(500);
      }
    },
  );
});

describe("read-only API keys (docs/decisions.md §18)", () => {
  let readOnly = "";
  beforeAll(async () => {
    const acct = await newActiveAccount();
    const made = await acct.as("POST", "/api/api-keys", { body: { label: "read-only", scope: "read-only" } });
    expect(made.status).toBe(201);
    readOnly = made.body.key;
  });

  it.each(authenticated.map((r) => [key(r), r] as const))(
    "%s: a read-only key may use it only if it is a GET",
    async (name, route) => {
      const res = await call(route.method, pathWith(route, "cmdoesnotexist000000000000"), {
        token: readOnly,
        body: noBody(route),
      });
      if (route.method === "GET") {
        expect(res.body?.error?.code, `${name} answered ${res.status} ${res.text.slice(0, 200)}`).not.toBe("FORBIDDEN");
        expect(res.status, name).toBeLessThan(500);
      } else expectEnvelope(res, 403, "FORBIDDEN", name);
    },
  );
});

describe("roles (docs/decisions.md §18): every role against every route, from the route's `needs`", () => {
  // Sign-out ends every session of the person: it runs last, so the member's token serves every other route first.
  const lastly = (r: RestRoute) => (key(r) === "POST /api/auth/logout" ? 1 : 0);
  const ordered = [...authenticated].sort((a, b) => lastly(a) - lastly(b));

  describe.each(ROLES.map((role) => [role] as const))("a %s", (role) => {
    let member: TestMember;
    beforeAll(async () => {
      member = await newMember(await newActiveAccount(), role);
    });

    it.each(ordered.map((r) => [key(r), r] as const))("%s", async (name, route) => {
      const res = await member.as(route.method, pathWith(route, "cmdoesnotexist000000000000"), { body: noBody(route) });
      const seen = `${name} as ${role} (needs ${route.needs}): answered ${res.status} ${res.text.slice(0, 200)}`;
      if (roleAllows(role, route.needs)) {
        expect(res.body?.error?.message ?? "", seen).not.toMatch(/Your role/);
        expect(res.status, seen).toBeLessThan(500);
      } else {
        expectEnvelope(res, 403, "FORBIDDEN", seen);
        expect(res.body.error.message, seen).toContain(`Your role (${role})`);
      }
    });
  });

  it("a viewer never receives a secret: not the account's webhook secret or engine URL, not an endpoint's", async () => {
    const acct = await newActiveAccount();
    const viewer = await newMember(acct, "viewer");
    const developer = await newMember(acct, "developer");
    const made = await acct.as("POST", "/api/webhook-endpoints", {
      body: { url: "https://hooks.example.com/rk", eventTypes: ["call.ended"] },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.webhookEndpoint.id;

    const asViewer = await viewer.as("GET", "/api/account");
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.account).not.toHaveProperty("webhookSecret");
    expect(asViewer.body.account).not.toHaveProperty("engineVoiceUrl");
    const endpoint = await viewer.as("GET", `/api/webhook-endpoints/${id}`);
    expect(endpoint.status).toBe(200);
    expect(endpoint.body.webhookEndpoint).not.toHaveProperty("secret");
    for (const res of [asViewer, endpoint]) expect(res.text).not.toMatch(/whsec_/);

    // A role that sees secrets gets them on the same routes.
    expect((await developer.as("GET", "/api/account")).body.account).toMatchObject({
      webhookSecret: expect.stringMatching(/^whsec_/),
      engineVoiceUrl: expect.stringContaining("/api/engine/voice/"),
    });
    expect((await developer.as("GET", `/api/webhook-endpoints/${id}`)).body.webhookEndpoint.secret).toMatch(/^whsec_/);
  });

  it("a key acts with its maker's role: a developer's key cannot manage the Twilio connection or billing", async () => {
    const acct = await newActiveAccount();
    const developer = await newMember(acct, "developer");
    const made = await developer.as("POST", "/api/api-keys", { body: { label: "dev" } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.role).toBe("developer");
    const devKey = made.body.key as string;
    expectEnvelope(await call("GET", "/api/billing/subscription", { token: devKey }), 403, "FORBIDDEN", "billing");
    expectEnvelope(await call("DELETE", "/api/twilio-connection", { token: devKey }), 403, "FORBIDDEN", "twilio");
    expect((await call("GET", "/api/phone-numbers", { token: devKey })).status).toBe(200);
    const listed = await acct.as("GET", "/api/api-keys");
    const row = listed.body.apiKeys.find((k: { id: string }) => k.id === made.body.id);
    expect(row).toMatchObject({ role: "developer", createdBy: { userId: developer.userId, email: developer.email } });
  });
});

/** The non-REST surfaces of issue #22 (docs/decisions.md §20); the full cases are in closed-account, redirects, account-settings, dev-outbox and account-mail. */
describe("closed accounts, redirects and the outbox (docs/decisions.md §20)", () => {
  it("a closed account's checkout and portal links are 404 and bring nothing back", async () => {
    const acct = await newAccount();
    const portal = (await acct.as("POST", "/api/billing/portal")).body.url as string;
    const closed = await trpc(
      "mutation",
      "settings.delete",
      { confirmEmail: acct.email, password: acct.password },
      { cookie: await sessionCookie(acct.email, acct.password) },
    );
    expect(closed.data).toEqual({ deleted: true });
    for (const url of [acct.checkoutUrl, `${portal}/resume`])
      expect((await fetch(url, { method: "POST", redirect: "manual" })).status, url).toBe(404);
    expect((await sql().query(`SELECT status FROM "Account" WHERE id = $1`, [acct.id])).rows[0].status).toBe(
      "SUSPENDED",
    );
  });

  it("no redirect leaves the service: /login for a signed-in visitor and /login/submit", async () => {
    const acct = await newAccount();
    const cookie = await sessionCookie(acct.email, acct.password);
    const origin = new URL(baseUrlOf()).origin;
    for (const target of ["%2F.%2F%2Fevil.example%2F", "%2F%252e%2F%2Fevil.example%2F", "%2F..%2F%2Fevil.example%2F"]) {
      const res = await fetch(`${baseUrlOf()}/login?callbackUrl=${target}`, {
        headers: { cookie },
        redirect: "manual",
      });
      expect(new URL(res.headers.get("location")!, `${origin}/login`).href, target).toBe(`${origin}/dashboard`);
    }
    const submit = await fetch(`${baseUrlOf()}/login/submit`, {
      method: "POST",
      redirect: "manual",
      headers: {
        origin: baseUrlOf(),
        "content-type": "application/x-www-form-urlencoded",
        "x-forwarded-for": randomIp(),
      },
      body: new URLSearchParams({ email: acct.email, password: acct.password, callbackUrl: "/\t/evil.example/" }),
    });
    expect(submit.headers.get("location")).toBe("/dashboard");
  });

  it("the outbox ignores X-Forwarded-For and refuses a Host that is not local", async () => {
    for (const xff of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "203.0.113.9, 127.0.0.1"]) {
      const res = await rawRequest("GET", "/dev/outbox", {
        server: "permissive",
        headers: { host: "evil.example", "x-forwarded-for": xff },
      });
      expect(res.status, xff).toBe(404);
    }
  });
});
