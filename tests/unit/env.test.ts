import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "../../src/server/env";

const root = mkdtempSync(path.join(tmpdir(), "routekit-env-"));
let n = 0;
const tmp = () => path.join(root, String(n++));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function problemsOf(source: Record<string, string>): string[] {
  try {
    parseEnv({ DATA_DIR: tmp(), ...source });
  } catch (err) {
    if (err instanceof EnvError) return err.problems;
    throw err;
  }
  return [];
}

describe("configuration", () => {
  it("has working defaults with nothing set", () => {
    const e = parseEnv({ DATA_DIR: tmp() });
    expect(e.port).toBe(3000);
    expect(e.publicBaseUrl).toBe("http://localhost:3000");
    expect(e.databaseUrl).toBeUndefined();
    expect(e.monthlyBase).toBe(49);
    expect(e.perMinuteRate).toBe(0.02);
    expect(e.callbackAllowPrivate).toBe(false);
    expect(e.callbackStartTimeoutMs).toBe(5000);
    expect(e.trustProxy).toBe(false);
    expect(e.encryptionKey).toHaveLength(32);
    expect(e.host).toBeUndefined();
  });

  it("HOST is the address to listen on; HOSTNAME, which shells and containers set to the machine's name, is not", () => {
    expect(parseEnv({ DATA_DIR: tmp(), HOST: "127.0.0.1" }).host).toBe("127.0.0.1");
    expect(parseEnv({ DATA_DIR: tmp(), HOST: "[::1]" }).host).toBe("::1");
    expect(parseEnv({ DATA_DIR: tmp(), HOST: "localhost" }).host).toBe("localhost");
    expect(parseEnv({ DATA_DIR: tmp(), HOSTNAME: "127.0.0.1" }).host).toBeUndefined();
  });

  it("names the variable of each invalid value", () => {
    expect(problemsOf({ PORT: "abc" })[0]).toMatch(/^PORT:/);
    expect(problemsOf({ PORT: "70000" })[0]).toMatch(/^PORT:/);
    expect(problemsOf({ DATABASE_URL: "mysql://x" })[0]).toMatch(/^DATABASE_URL:/);
    expect(problemsOf({ PUBLIC_BASE_URL: "not a url" })[0]).toMatch(/^PUBLIC_BASE_URL:/);
    expect(problemsOf({ CALLBACK_ALLOW_PRIVATE: "yes" })[0]).toMatch(/^CALLBACK_ALLOW_PRIVATE:/);
    expect(problemsOf({ TRUST_PROXY: "maybe" })[0]).toMatch(/^TRUST_PROXY:/);
    expect(problemsOf({ ENCRYPTION_KEY: "short" })[0]).toMatch(/^ENCRYPTION_KEY:/);
    expect(problemsOf({ AUTH_SECRET: "short" })[0]).toMatch(/^AUTH_SECRET:/);
    expect(problemsOf({ REDIS_URL: "http://x" })[0]).toMatch(/^REDIS_URL:/);
    expect(problemsOf({ PER_MINUTE_RATE: "-1" })[0]).toMatch(/^PER_MINUTE_RATE:/);
    expect(problemsOf({ PORT: "x", REDIS_URL: "y" })).toHaveLength(2);
    expect(problemsOf({ HOST: "my-container-name" })[0]).toMatch(/^HOST:/);
    expect(problemsOf({ HOST: "127.0.0.1:3000" })[0]).toMatch(/^HOST:/);
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ DATA_DIR: tmp(), PORT: "", DATABASE_URL: "" }).port).toBe(3000);
  });

  it("generates AUTH_SECRET once into DATA_DIR and reuses it", () => {
    const dir = tmp();
    const first = parseEnv({ DATA_DIR: dir });
    const second = parseEnv({ DATA_DIR: dir });
    expect(first.authSecret).toBe(second.authSecret);
    expect(first.authSecret.length).toBeGreaterThanOrEqual(32);
    const file = path.join(dir, "auth-secret");
    expect(readFileSync(file, "utf8").trim()).toBe(first.authSecret);
    expect(statSync(file).mode & 0o077).toBe(0);
  });

  it("refuses to start in production on a shared database without AUTH_SECRET", () => {
    const problems = problemsOf({ NODE_ENV: "production", DATABASE_URL: "postgresql://db/x" });
    expect(problems[0]).toMatch(/^AUTH_SECRET:/);
  });

  it("derives the encryption key from AUTH_SECRET unless given", () => {
    const a = parseEnv({ DATA_DIR: tmp(), AUTH_SECRET: "a".repeat(40) });
    const b = parseEnv({ DATA_DIR: tmp(), AUTH_SECRET: "a".repeat(40) });
    expect(a.encryptionKey.equals(b.encryptionKey)).toBe(true);
    const hex = "ab".repeat(32);
    expect(parseEnv({ DATA_DIR: tmp(), ENCRYPTION_KEY: hex }).encryptionKey.toString("hex")).toBe(hex);
  });

  it("is in local billing mode without a Stripe key; Stripe mode names what it is missing", () => {
    expect(parseEnv({ DATA_DIR: tmp() }).billingMode).toBe("local");
    expect(
      problemsOf({ STRIPE_SECRET_KEY: "sk_test_x", STRIPE_PRICE_BASE: "price_b" }).map((p) => p.split(":")[0]),
    ).toEqual(["STRIPE_WEBHOOK_SECRET", "STRIPE_PRICE_PER_MINUTE", "STRIPE_METER_EVENT_NAME"]);
    const stripe = parseEnv({
      DATA_DIR: tmp(),
      STRIPE_SECRET_KEY: "sk_test_x",
      STRIPE_WEBHOOK_SECRET: "whsec_x",
      STRIPE_PRICE_BASE: "price_b",
      STRIPE_PRICE_PER_MINUTE: "price_m",
      STRIPE_METER_EVENT_NAME: "routekit_minutes",
    });
    expect(stripe.billingMode).toBe("stripe");
  });

  it("strips a trailing slash from PUBLIC_BASE_URL", () => {
    expect(parseEnv({ DATA_DIR: tmp(), PUBLIC_BASE_URL: "https://rk.example.com/" }).publicBaseUrl).toBe(
      "https://rk.example.com",
    );
  });
});
