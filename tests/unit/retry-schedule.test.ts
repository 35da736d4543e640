import { describe, expect, it } from "vitest";
import { MAX_ATTEMPTS, nextRetry, parseRetryAfter } from "../../src/server/services/deliveries/retry-schedule";

describe("retry schedule", () => {
  const plan = (random: number) => {
    const delays: number[] = [];
    for (let attempt = 1; ; attempt++) {
      const d = nextRetry({ attempt, status: 500, random: () => random });
      if (!d.retry) return { delays, reason: d.reason, attempts: attempt };
      delays.push(d.delayMs);
    }
  };

  it("makes 8 attempts over at least 24 hours, each wait longer than the last", () => {
    const { delays, attempts, reason } = plan(0);
    expect(attempts).toBe(MAX_ATTEMPTS);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(reason).toMatch(/8 attempts/);
    expect(delays[0]).toBe(5_000);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600_000);
  });

  it("adds at most 20% jitter, never less", () => {
    const low = plan(0).delays;
    const high = plan(0.999999).delays;
    low.forEach((d, i) => {
      expect(high[i]!).toBeGreaterThan(d);
      expect(high[i]!).toBeLessThanOrEqual(Math.round(d * 1.2));
    });
  });

  it("stops at once on 410 Gone", () => {
    expect(nextRetry({ attempt: 1, status: 410 })).toEqual({ retry: false, reason: "receiver answered 410 Gone" });
  });

  it("honours Retry-After when it asks for longer, capped at a day", () => {
    expect(nextRetry({ attempt: 1, status: 429, retryAfterSeconds: 120, random: () => 0 })).toEqual({
      retry: true,
      delayMs: 120_000,
    });
    expect(nextRetry({ attempt: 3, status: 503, retryAfterSeconds: 1, random: () => 0 })).toEqual({
      retry: true,
      delayMs: 30 * 60_000,
    });
    expect(nextRetry({ attempt: 1, status: 503, retryAfterSeconds: 10 ** 9, random: () => 0 })).toEqual({
      retry: true,
      delayMs: 24 * 3600_000,
    });
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = new Date("2026-11-22T10:00:00Z");
    expect(parseRetryAfter("30", now)).toBe(30);
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:01:00 GMT", now)).toBe(60);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
