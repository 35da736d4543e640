import { describe, expect, it } from "vitest";
import { call, newAccount, randomIp, uniqueEmail } from "./support/api";

describe("POST /api/auth/login", () => {
  it("happy: exchanges email and password for a JWT accepted as a Bearer token", async () => {
    const acct = await newAccount();
    const res = await call("POST", "/api/auth/login", { body: { email: acct.email.toUpperCase(), password: acct.password } });
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
    const unknown = await call("POST", "/api/auth/login", { body: { email: uniqueEmail(), password: "wrong-password" } });
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

  it("security: 10 attempts a minute per email, from any number of addresses", async () => {
    const acct = await newAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await call("POST", "/api/auth/login", { ip: randomIp(), body: { email: acct.email, password: "guess-" + i } });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
  });

  it("security: 10 attempts a minute per IP, across emails", async () => {
    const ip = randomIp();
    let last;
    for (let i = 0; i < 11; i++) last = await call("POST", "/api/auth/login", { ip, body: { email: uniqueEmail(), password: "password1" } });
    expect(last!.status).toBe(429);
    expect(last!.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
