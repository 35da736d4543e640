import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, inject } from "vitest";
import { baseUrlOf, newAccount } from "./support/api";

/**
 * Without SMTP_URL (the permissive server) mail lands in DATA_DIR/outbox, one
 * JSON file per message, listed by /dev/outbox to a browser on the box only.
 */
describe("the development outbox", () => {
  it("keeps each message as a file and lists it on /dev/outbox for a loopback client", async () => {
    const acct = await newAccount({ server: "permissive" });
    const dir = path.join(inject("permissiveDataDir"), "outbox");
    let files: string[] = [];
    for (let i = 0; i < 50 && !files.length; i++) {
      files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(files.length).toBeGreaterThan(0);
    const page = await fetch(`${baseUrlOf("permissive")}/dev/outbox`, { headers: { "x-forwarded-for": "127.0.0.1" } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(acct.email);
    expect(html).toMatch(/\/verify-email\?token=/);
  });

  it("is not there for a client elsewhere, nor on a server that sends by SMTP", async () => {
    const remote = await fetch(`${baseUrlOf("permissive")}/dev/outbox`, { headers: { "x-forwarded-for": "203.0.113.7" } });
    expect(remote.status).toBe(404);
    expect(await remote.text()).not.toMatch(/verify-email\?token=/);
    const smtp = await fetch(`${baseUrlOf("strict")}/dev/outbox`, { headers: { "x-forwarded-for": "127.0.0.1" } });
    expect(smtp.status).toBe(404);
  });
});
