import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnv, setEnv } from "../../src/server/env";
import { emailChangeMail, passwordResetMail, verificationMail } from "../../src/server/email/account-mails";
import { listOutbox } from "../../src/server/email/outbox";
import { isLocalHostHeader, isLoopbackSocketAddress, outboxVisibleTo } from "../../src/server/email/outbox-access";
import { mailMode, sendMail, senderAddress } from "../../src/server/email/send-mail";

function useEnv(vars: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "routekit-mail-"));
  setEnv(
    parseEnv(
      { AUTH_SECRET: "x".repeat(40), DATA_DIR: dataDir, LOG_LEVEL: "silent", ...vars },
      { persistSecrets: false },
    ),
  );
  return dataDir;
}

afterEach(() => {
  useEnv({});
});

describe("account mails", () => {
  it("each has a plain-text part with its link, its lifetime and what to do if you did not ask", () => {
    useEnv({ PUBLIC_BASE_URL: "https://routekit.example.com" });
    const cases = [
      [
        verificationMail("a@example.com", "tok/1"),
        "https://routekit.example.com/verify-email?token=tok%2F1",
        /48 hours/,
        /did not create/,
      ],
      [
        passwordResetMail("a@example.com", "tok"),
        "https://routekit.example.com/reset-password?token=tok",
        /1 hour/,
        /did not ask/,
      ],
      [
        emailChangeMail("a@example.com", "tok"),
        "https://routekit.example.com/verify-email/new-address?token=tok",
        /24 hours/,
        /did not ask/,
      ],
    ] as const;
    for (const [mail, link, lifetime, notMe] of cases) {
      expect(mail.text).toContain(link);
      expect(mail.text).toMatch(lifetime);
      expect(mail.text).toMatch(notMe);
      expect(mail.html).toContain(link.replace(/&/g, "&amp;"));
    }
    expect(senderAddress()).toBe("Routekit <no-reply@routekit.example.com>");
  });

  it("SMTP_URL must be smtp:// or smtps://", () => {
    expect(() => parseEnv({ AUTH_SECRET: "x".repeat(40), SMTP_URL: "http://mail" }, { persistSecrets: false })).toThrow(
      /SMTP_URL: must be an smtp/,
    );
    expect(
      parseEnv({ AUTH_SECRET: "x".repeat(40), SMTP_URL: "smtps://u:p@mail.example.com:465" }, { persistSecrets: false })
        .smtpUrl,
    ).toBe("smtps://u:p@mail.example.com:465");
  });
});

describe("the outbox", () => {
  it("without SMTP_URL, each message is one file under DATA_DIR/outbox, listed newest first", async () => {
    const dataDir = useEnv({});
    expect(mailMode()).toBe("outbox");
    await sendMail({ to: "one@example.com", subject: "first", text: "1" });
    await sendMail({ to: "two@example.com", subject: "second", text: "2" });
    const files = readdirSync(path.join(dataDir, "outbox"));
    expect(files).toHaveLength(2);
    expect(JSON.parse(readFileSync(path.join(dataDir, "outbox", files[0]!), "utf8"))).toMatchObject({
      to: "one@example.com",
      subject: "first",
      text: "1",
    });
    expect((await listOutbox()).map((m) => m.subject)).toEqual(["second", "first"]);
  });

  it("is shown only on a loopback box without SMTP, to a loopback socket that names a local Host", () => {
    useEnv({ PUBLIC_BASE_URL: "http://localhost:3000" });
    const local = (socketIp: string | null) => outboxVisibleTo({ socketIp, host: "localhost:3000" });
    expect(local("127.0.0.1")).toBe(true);
    expect(local("::1")).toBe(true);
    expect(local("::ffff:127.0.0.1")).toBe(true);
    expect(local("127.0.0.2")).toBe(true);
    expect(local("203.0.113.9")).toBe(false);
    expect(local("192.0.2.2")).toBe(false);
    expect(local("::ffff:203.0.113.9")).toBe(false);
    expect(local(null)).toBe(false);
    expect(local("unknown")).toBe(false);
    // Behind a proxy on the same host every client looks like loopback; a public address says it is a deployment.
    useEnv({ PUBLIC_BASE_URL: "https://routekit.example.com" });
    expect(local("127.0.0.1")).toBe(false);
    useEnv({ PUBLIC_BASE_URL: "http://localhost:3000", SMTP_URL: "smtp://127.0.0.1:2525" });
    expect(local("127.0.0.1")).toBe(false);
  });

  it("the socket rule: loopback addresses only, as a socket reports them (docs/decisions.md §20)", () => {
    for (const a of ["127.0.0.1", "127.255.0.9", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::ffff:7f00:1"])
      expect(isLoopbackSocketAddress(a), a).toBe(true);
    // What X-Forwarded-For tricks used to pass never reaches this rule, but none of it is loopback either.
    for (const a of [
      "203.0.113.9, 127.0.0.1",
      "192.0.2.2",
      "10.0.0.1",
      "::",
      "0.0.0.0",
      "fe80::1",
      "localhost",
      "",
      null,
      undefined,
    ])
      expect(isLoopbackSocketAddress(a), String(a)).toBe(false);
  });

  it("the Host rule: localhost, 127.0.0.1 or [::1], any port; a rebinding name never", () => {
    for (const h of ["localhost", "LOCALHOST:3000", "127.0.0.1", "127.0.0.1:65535", "[::1]", "[::1]:8080"])
      expect(isLocalHostHeader(h), h).toBe(true);
    for (const h of [
      "evil.example",
      "localhost.evil.example",
      "127.0.0.1.nip.io",
      "127.0.0.2",
      "::1",
      "[::1]x",
      "localhost:abc",
      "localhost:3000 ",
      "",
      null,
    ])
      expect(isLocalHostHeader(h), String(h)).toBe(false);
    useEnv({ PUBLIC_BASE_URL: "http://localhost:3000" });
    expect(outboxVisibleTo({ socketIp: "127.0.0.1", host: "rebind.evil.example:3000" })).toBe(false);
    expect(outboxVisibleTo({ socketIp: "127.0.0.1", host: null })).toBe(false);
  });
});
