import { generateSync } from "otplib";
import { describe, expect, it } from "vitest";
import { type ApiResponse, call, newAccount, randomIp, seed, sql, type TestAccount } from "../support/api";

/**
 * docs/decisions.md §18 and §22 through the real REST API. The server checks codes against its own clock, so a
 * code is made here from the secret at the current time (with otplib, as an authenticator app would); a test
 * that straddles a 30-second boundary still passes, as the server accepts one step either side.
 */
const codeAt = (secret: string, offsetSteps = 0) =>
  generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

/** A code of a step no code has signed in with yet: each step is good once (replay). */
const unusedCode = (secret: string, used: Set<string>) => {
  for (const offset of [0, 1, -1]) {
    const code = codeAt(secret, offset);
    if (!used.has(code)) {
      used.add(code);
      return code;
    }
  }
  throw new Error("every code in the window is spent; wait for the next step");
};

/** Six digits that are no code of the window around now: a wrong guess that cannot be right by chance. */
const notACode = (secret: string) => {
  const window = new Set([-1, 0, 1].map((o) => codeAt(secret, o)));
  return ["000000", "111111", "222222", "333333"].find((c) => !window.has(c))!;
};

type Enabled = { acct: TestAccount; secret: string; recoveryCodes: string[]; used: Set<string> };

async function withTwoFactor(acct?: TestAccount): Promise<Enabled> {
  const a = acct ?? (await newAccount());
  const begun = await call("POST", "/api/auth/two-factor", { token: a.token, ip: a.ip });
  expect(begun.status).toBe(200);
  const secret: string = begun.body.secret;
  const used = new Set<string>();
  const confirmed = await call("POST", "/api/auth/two-factor/confirm", {
    token: a.token,
    ip: a.ip,
    body: { code: unusedCode(secret, used) },
  });
  expect(confirmed.status).toBe(200);
  return { acct: a, secret, recoveryCodes: confirmed.body.recoveryCodes, used };
}

const login = (a: TestAccount, extra: Record<string, unknown> = {}, ip = a.ip): Promise<ApiResponse> =>
  call("POST", "/api/auth/login", { ip, body: { email: a.email, password: a.password, ...extra } });

async function auditActions(accountId: string): Promise<string[]> {
  const { rows } = await sql().query<{ action: string }>(
    `select action from "AuditLogEntry" where "accountId" = $1 order by "createdAt", id`,
    [accountId],
  );
  return rows.map((r) => r.action);
}

describe("two-factor sign-in (TOTP and recovery codes)", () => {
  it("happy: begin gives a secret and an otpauth URL; nothing changes until a code confirms it", async () => {
    const acct = await newAccount();
    const begun = await call("POST", "/api/auth/two-factor", { token: acct.token, ip: acct.ip });
    expect(begun.status).toBe(200);
    expect(begun.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(begun.body.otpauthUrl);
    expect(url.protocol).toBe("otpauth:");
    expect(url.searchParams.get("secret")).toBe(begun.body.secret);
    expect(decodeURIComponent(url.pathname)).toContain(acct.email);
    // Not on yet: the password alone still signs in.
    expect((await login(acct)).status).toBe(200);
    // The secret is stored encrypted, never as given.
    const { rows } = await sql().query(`select "totpSecretEnc", "twoFactorEnabledAt" from "User" where email = $1`, [
      acct.email,
    ]);
    expect(rows[0].totpSecretEnc).not.toContain(begun.body.secret);
    expect(rows[0].twoFactorEnabledAt).toBeNull();
  });

  it("happy: confirm turns it on and answers ten distinct recovery codes, stored only hashed", async () => {
    const { acct, recoveryCodes } = await withTwoFactor();
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const { rows } = await sql().query<{ codeHash: string }>(
      `select r."codeHash" from "RecoveryCode" r join "User" u on u.id = r."userId" where u.email = $1`,
      [acct.email],
    );
    expect(rows).toHaveLength(10);
    for (const code of recoveryCodes) expect(rows.map((r) => r.codeHash)).not.toContain(code);
    expect(await auditActions(acct.id)).toContain("user.two_factor_enabled");
    // A second begin is refused while it is on: the secret in use is not replaced by accident.
    const again = await call("POST", "/api/auth/two-factor", { token: acct.token, ip: acct.ip });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/already on/);
  });

  it("error: confirm with a wrong code, or before begin, is refused and leaves it off", async () => {
    const acct = await newAccount();
    const early = await call("POST", "/api/auth/two-factor/confirm", {
      token: acct.token,
      ip: acct.ip,
      body: { code: "123456" },
    });
    expect(early.status).toBe(400);
    const begun = await call("POST", "/api/auth/two-factor", { token: acct.token, ip: acct.ip });
    const refused = await call("POST", "/api/auth/two-factor/confirm", {
      token: acct.token,
      ip: acct.ip,
      body: { code: notACode(begun.body.secret) },
    });
    expect(refused.status).toBe(400);
    const malformed = await call("POST", "/api/auth/two-factor/confirm", {
      token: acct.token,
      ip: acct.ip,
      body: { code: "12ab56" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("VALIDATION_FAILED");
    expect((await login(acct)).status).toBe(200);
  });

  it("login: without a code 401 TWO_FACTOR_REQUIRED; a wrong code 401; a good code signs in once", async () => {
    const { acct, secret, used } = await withTwoFactor();
    const bare = await login(acct);
    expect(bare.status).toBe(401);
    expect(bare.body.error.code).toBe("TWO_FACTOR_REQUIRED");
    // A wrong password says nothing of two-factor.
    const wrongPassword = await login({ ...acct, password: "not-the-password" }, { code: codeAt(secret) });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body.error.code).toBe("UNAUTHORIZED");
    expect(wrongPassword.body.error.message).toBe("Invalid email or password.");

    const wrong = await login(acct, { code: notACode(secret) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ code: "UNAUTHORIZED", message: "Invalid two-factor code." });

    const code = unusedCode(secret, used);
    const ok = await login(acct, { code });
    expect(ok.status).toBe(200);
    expect((await call("GET", "/api/account", { token: ok.body.token })).status).toBe(200);
    // The same code again (a replay, or a shoulder-surfer) is refused, though still inside its window.
    const replay = await login(acct, { code });
    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toBe("Invalid two-factor code.");
  });

  it("login: a recovery code signs in once, whatever its case and dashes", async () => {
    const { acct, recoveryCodes } = await withTwoFactor();
    const [first, second] = recoveryCodes as [string, string];
    const ok = await login(acct, { recoveryCode: first.toUpperCase().replace("-", " ") });
    expect(ok.status).toBe(200);
    const again = await login(acct, { recoveryCode: first });
    expect(again.status).toBe(401);
    expect(again.body.error.message).toBe("Invalid two-factor code.");
    expect((await login(acct, { recoveryCode: second })).status).toBe(200);
    const { rows } = await sql().query(
      `select count(*)::int as n from "RecoveryCode" r join "User" u on u.id = r."userId" where u.email = $1 and r."usedAt" is not null`,
      [acct.email],
    );
    expect(rows[0].n).toBe(2);
  });

  it("security: wrong codes count against the log-in rate limits", async () => {
    const { acct, secret } = await withTwoFactor();
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await login(acct, { code: notACode(secret) }, ip)).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it("security: the two-factor routes are a signed-in person's, not an API key's", async () => {
    const acct = await newAccount();
    const res = await acct.as("POST", "/api/auth/two-factor");
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    expect((await call("POST", "/api/auth/two-factor")).status).toBe(401);
  });

  it("regenerate: new codes with a code; the old ones stop working", async () => {
    const { acct, secret, used, recoveryCodes } = await withTwoFactor();
    const res = await call("POST", "/api/auth/two-factor/recovery-codes", {
      token: acct.token,
      ip: acct.ip,
      body: { code: unusedCode(secret, used) },
    });
    expect(res.status).toBe(200);
    expect(res.body.recoveryCodes).toHaveLength(10);
    expect(res.body.recoveryCodes).not.toContain(recoveryCodes[0]);
    expect((await login(acct, { recoveryCode: recoveryCodes[0] })).status).toBe(401);
    expect((await login(acct, { recoveryCode: res.body.recoveryCodes[0] })).status).toBe(200);
    expect(await auditActions(acct.id)).toContain("user.recovery_codes_regenerated");
    const wrong = await call("POST", "/api/auth/two-factor/recovery-codes", {
      token: acct.token,
      ip: acct.ip,
      body: { code: "zzzzzz-zzzzzz" },
    });
    expect(wrong.status).toBe(400);
  });

  it("disable: a wrong code is refused; a recovery code turns it off and the password alone signs in again", async () => {
    const { acct, recoveryCodes } = await withTwoFactor();
    const wrong = await call("DELETE", "/api/auth/two-factor", {
      token: acct.token,
      ip: acct.ip,
      body: { code: "zzzzzz-zzzzzz" },
    });
    expect(wrong.status).toBe(400);
    expect((await login(acct)).status).toBe(401);
    const off = await call("DELETE", "/api/auth/two-factor", {
      token: acct.token,
      ip: acct.ip,
      body: { code: recoveryCodes[0] },
    });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ twoFactorEnabled: false });
    expect((await login(acct)).status).toBe(200);
    expect(await auditActions(acct.id)).toContain("user.two_factor_disabled");
    const { rows } = await sql().query(
      `select count(*)::int as n from "RecoveryCode" r join "User" u on u.id = r."userId" where u.email = $1`,
      [acct.email],
    );
    expect(rows[0].n).toBe(0);
  });

  it("disable: with the app's code", async () => {
    const { acct, secret, used } = await withTwoFactor();
    const off = await call("DELETE", "/api/auth/two-factor", {
      token: acct.token,
      ip: acct.ip,
      body: { code: unusedCode(secret, used) },
    });
    expect(off.status).toBe(200);
    expect((await login(acct)).status).toBe(200);
  });
});

describe("an owner requires two-factor of every member", () => {
  it("the owner must have it first; then a member without it gets 403 elsewhere and may still turn it on", async () => {
    const owner = await newAccount();
    const policy = (required: boolean, token = owner.token) =>
      call("PUT", "/api/account/two-factor-policy", { token, ip: owner.ip, body: { required } });

    const early = await policy(true);
    expect(early.status).toBe(400);
    expect(early.body.error.message).toMatch(/yourself first/);

    await withTwoFactor(owner);
    const on = await policy(true);
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ required: true });
    expect(await auditActions(owner.id)).toContain("account.two_factor_required");

    // A second person, made a developer of the owner's account (the invitation flow is the members suite's).
    const other = await newAccount();
    const { rows } = await sql().query<{ id: string }>(`select id from "User" where email = $1`, [other.email]);
    await seed().membership({ accountId: owner.id, userId: rows[0]!.id, role: "developer" });
    const signedIn = await login(other, { accountId: owner.id });
    expect(signedIn.status).toBe(200);
    const token: string = signedIn.body.token;

    const refused = await call("GET", "/api/phone-numbers", { token, ip: other.ip });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/requires two-factor/);
    // Only an owner changes the requirement.
    expect((await policy(false, token)).status).toBe(403);
    // Their own two-factor is theirs to turn on; then the account opens to them.
    const begun = await call("POST", "/api/auth/two-factor", { token, ip: other.ip });
    expect(begun.status).toBe(200);
    const confirmed = await call("POST", "/api/auth/two-factor/confirm", {
      token,
      ip: other.ip,
      body: { code: codeAt(begun.body.secret) },
    });
    expect(confirmed.status).toBe(200);
    expect((await call("GET", "/api/phone-numbers", { token, ip: other.ip })).status).toBe(200);
    // API keys are not people: the requirement does not touch them.
    expect((await owner.as("GET", "/api/phone-numbers")).status).toBe(200);

    const off = await policy(false);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ required: false });
  });
});
