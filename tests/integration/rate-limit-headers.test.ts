import { describe, expect, it } from "vitest";
import { call, newAccount } from "../support/api";

/** `"name";r=12;t=1` → { name, r, t }: the IETF RateLimit field as we send it. */
function parseField(value: string | null): Record<string, string> {
  expect(value).toBeTruthy();
  const [name, ...params] = value!.split(";");
  return { name: name!, ...Object.fromEntries(params.map((p) => p.split("=") as [string, string])) };
}

describe("RateLimit headers (IETF draft) on the REST API", () => {
  it("every authenticated answer says the account bucket's policy and what is left of it", async () => {
    const acct = await newAccount();
    const first = await acct.as("GET", "/api/account");
    expect(first.status).toBe(200);
    expect(parseField(first.headers.get("ratelimit-policy"))).toEqual({ name: '"account"', q: "100", w: "2" });
    const left = Number(parseField(first.headers.get("ratelimit")).r);
    expect(left).toBeGreaterThanOrEqual(0);
    expect(left).toBeLessThan(100);

    // A burst spends the bucket: what is left goes down, and an error answer carries the fields too.
    const burst = await Promise.all(Array.from({ length: 30 }, () => acct.as("GET", "/api/phone-numbers")));
    const lefts = burst.map((r) => Number(parseField(r.headers.get("ratelimit")).r));
    expect(Math.min(...lefts)).toBeLessThan(left);
    const missing = await acct.as("GET", "/api/phone-numbers/nope");
    expect(missing.status).toBe(404);
    expect(parseField(missing.headers.get("ratelimit")).name).toBe('"account"');
  });

  it("a 429 carries them, with nothing left, beside Retry-After", async () => {
    const acct = await newAccount();
    const answers = await Promise.all(Array.from({ length: 160 }, () => acct.as("GET", "/api/account")));
    const limited = answers.find((r) => r.status === 429);
    expect(limited, "160 requests at once must overrun a bucket of 100").toBeDefined();
    expect(limited!.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(parseField(limited!.headers.get("ratelimit")).r).toBe("0");
  });

  it("register and login say the per-address policy; routes without a bucket send none", async () => {
    const login = await call("POST", "/api/auth/login", {
      body: { email: "nobody@example.com", password: "wrong-password" },
    });
    expect(login.status).toBe(401);
    expect(parseField(login.headers.get("ratelimit-policy"))).toEqual({ name: '"address"', q: "10", w: "60" });
    const health = await call("GET", "/api/health");
    expect(health.headers.get("ratelimit")).toBeNull();
  });
});
