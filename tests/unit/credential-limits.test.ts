import { describe, expect, it } from "vitest";
import {
  LOGIN_PROCEDURE,
  credentialLimits,
  rateLimitSubject,
  sessionPasswordCheckLimits,
} from "../../src/server/rate-limit/credential-limits";

describe("rateLimitSubject", () => {
  it("keeps an IPv4 address as it is", () => {
    expect(rateLimitSubject("198.51.100.7")).toBe("198.51.100.7");
  });

  it("counts an IPv6 address by its /64, however it is written", () => {
    const a = rateLimitSubject("2001:db8:1234:5678::1");
    expect(a).toBe("2001:db8:1234:5678::/64");
    expect(rateLimitSubject("2001:0db8:1234:5678:ffff:eeee:dddd:cccc")).toBe(a);
    expect(rateLimitSubject("2001:DB8:1234:5678:0:0:0:2")).toBe(a);
    expect(rateLimitSubject("[2001:db8:1234:5678::3]")).toBe(a);
    expect(rateLimitSubject("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(rateLimitSubject("2001:db8:1234:5679::1")).not.toBe(a);
    expect(rateLimitSubject("::1")).toBe("0:0:0:0::/64");
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4 address", () => {
    expect(rateLimitSubject("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(rateLimitSubject("::FFFF:c633:6407")).toBe("198.51.100.7");
    expect(rateLimitSubject("0:0:0:0:0:ffff:198.51.100.7")).toBe("198.51.100.7");
  });

  it("leaves anything else as given, cut short", () => {
    expect(rateLimitSubject("unknown")).toBe("unknown");
    expect(rateLimitSubject("x".repeat(500))).toHaveLength(64);
  });
});

describe("credentialLimits", () => {
  it("before the body is parsed: only the address bucket", () => {
    expect(credentialLimits({ procedure: "auth.login", ip: "2001:db8::9", stage: "address" })).toEqual([
      { key: "auth.login:ip:2001:db8:0:0::/64", policy: "authIp" },
    ]);
  });

  it("with the email: the (email, address) bucket first, then the email ceiling", () => {
    expect(
      credentialLimits({
        procedure: "auth.login",
        ip: "198.51.100.7",
        email: " You@Example.com ",
        stage: "credentials",
      }),
    ).toEqual([
      { key: "auth.login:email-ip:you@example.com|198.51.100.7", policy: "authPair" },
      { key: "auth.login:email:you@example.com", policy: "authEmail" },
    ]);
  });

  it("the owner's bucket is not the attacker's: other addresses, other pair keys; the same /64, the same key", () => {
    const owner = credentialLimits({
      procedure: "auth.login",
      ip: "198.51.100.7",
      email: "a@b.co",
      stage: "credentials",
    })[0]!.key;
    const attacker = credentialLimits({
      procedure: "auth.login",
      ip: "203.0.113.9",
      email: "a@b.co",
      stage: "credentials",
    })[0]!.key;
    expect(owner).not.toBe(attacker);
    const v6a = credentialLimits({
      procedure: "auth.login",
      ip: "2001:db8:1:2::a",
      email: "a@b.co",
      stage: "credentials",
    })[0]!.key;
    const v6b = credentialLimits({
      procedure: "auth.login",
      ip: "2001:db8:1:2:ffff::b",
      email: "a@b.co",
      stage: "credentials",
    })[0]!.key;
    expect(v6a).toBe(v6b);
  });
});

describe("session password checks (docs/decisions.md §20)", () => {
  it("take from log-in's own (email, address) and per-email buckets, so the two paths share one budget", () => {
    const login = credentialLimits({
      procedure: LOGIN_PROCEDURE,
      ip: "2001:db8:1:2::9",
      email: "Owner@Example.com",
      stage: "credentials",
    });
    expect(sessionPasswordCheckLimits({ ip: "2001:db8:1:2::77", email: "owner@example.com" })).toEqual(login);
    expect(login.map((l) => l.policy)).toEqual(["authPair", "authEmail"]);
    expect(login[0]!.key.startsWith("auth.login:")).toBe(true);
  });
});
