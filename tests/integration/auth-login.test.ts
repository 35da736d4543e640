import { describe, expect, it } from "vitest";
import { call, newAccount, randomIp, uniqueEmail } from "../support/api";

describe("POST /api/auth/login", () => {
  it("happy: exchanges email and password for a JWT accepted as a Bearer token", async () => {
    const acct = await newAccount();
    const res = await call("POST", "/api/auth/login", {
      body: { email: acct.email.toUpperCase(), password: acct.password },
    });
    expect(res.status).toBe(200);
    expect(res.body.token.split(".")).toHaveLength(3);
    const expiresIn = Date.parse(res.body.expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(23.9 * 3600_000);
    expect(expiresIn).toBeLessThanOrEqual(24 * 3600_000);
    const me = await call("GET", "/api/account", { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.account.id).toBe(acct.id);
  });

  it("error: one 401 message for a wrong password and for an unknown email", async () => {
    const acct = await newAccount();
    const wrong = await call("POST", "/api/auth/login", { body: { email: acct.email, password: "wrong-password" } });
    const unknown = await call("POST", "/api/auth/login", {
      body: { email: uniqueEmail(), password: "wrong-password" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe("UNAUTHORIZED");
  });

  it("error: 400 for a malformed body", async () => {
    const res = await call("POST", "/api/auth/login", { body: { email: 42 } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
  });

  it("security: ten wrong passwords from elsewhere do not lock the owner out; the guessing address is limited", async () => {
    const acct = await newAccount();
    const attacker = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push(
        (await call("POST", "/api/auth/login", { ip: attacker, body: { email: acct.email, password: `guess-${i}` } }))
          .status,
      );
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    // A second attacking address gets its own ten guesses, no more.
    const other = randomIp();
    for (let i = 0; i < 10; i++)
      expect(
        (await call("POST", "/api/auth/login", { ip: other, body: { email: acct.email, password: `guess-${i}` } }))
          .status,
      ).toBe(401);
    expect(
      (await call("POST", "/api/auth/login", { ip: other, body: { email: acct.email, password: acct.password } }))
        .status,
    ).toBe(429);
    // The owner, from their own address, logs in.
    const own = await call("POST", "/api/auth/login", {
      ip: acct.ip,
      body: { email: acct.email, password: acct.password },
    });
    expect(own.status).toBe(200);
    expect(own.body.token).toBeTruthy();
  });

  it("security: a guesser spread over many addresses is bounded by the per-email ceiling (100 an hour)", async () => {
    const acct = await newAccount();
    const statuses = await Promise.all(
      Array.from({ length: 110 }, (_, i) =>
        call("POST", "/api/auth/login", { ip: randomIp(), body: { email: acct.email, password: `guess-${i}` } }).then(
          (r) => r.status,
        ),
      ),
    );
    // 100 guesses, plus at most one the bucket refilled while they ran (one every 36 s).
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(100);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(101);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(9);
  });

  it("security: an IPv6 /64 is one client for the per-address limit", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    let last;
    for (let i = 0; i < 11; i++)
      last = await call("POST", "/api/auth/login", {
        ip: `${prefix}::${(i + 1).toString(16)}`,
        body: { email: uniqueEmail(), password: "password1" },
      });
    expect(last!.status).toBe(429);
    // An IPv4-mapped address is its IPv4 address.
    const v4 = randomIp();
    for (let i = 0; i < 10; i++)
      await call("POST", "/api/auth/login", {
        ip: i % 2 ? v4 : `::ffff:${v4}`,
        body: { email: uniqueEmail(), password: "password1" },
      });
    expect(
      (
        await call("POST", "/api/auth/login", {
          ip: `::ffff:${v4}`,
          body: { email: uniqueEmail(), password: "password1" },
        })
      ).status,
    ).toBe(429);
  });

  it("security: 10 attempts a minute per IP, across emails", async () => {
    const ip = randomIp();
    let last;
    for (let i = 0; i < 11; i++)
      last = await call("POST", "/api/auth/login", { ip, body: { email: uniqueEmail(), password: "password1" } });
    expect(last!.status).toBe(429);
    expect(last!.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
