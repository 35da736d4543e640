import { existsSync, readFileSync, readdirSync } from "node:fs";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { describe, expect, it, inject } from "vitest";
import { siblingDatabase, startBuiltServer } from "../../scripts/built-server";
import { baseUrlOf, newAccount } from "../support/api";
import { rawRequest } from "../support/raw-http";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

/**
 * Without SMTP_URL (the permissive server) mail lands in DATA_DIR/outbox, one
 * JSON file per message, listed by /dev/outbox to a browser on the box only:
 * docs/decisions.md §20, a connection whose socket is loopback and whose Host is
 * localhost, 127.0.0.1 or [::1], whatever X-Forwarded-For says (the test
 * servers run with TRUST_PROXY=true, as the attack of issue #22 did).
 */
const port = () => new URL(baseUrlOf("permissive")).port;
const outbox = (headers: Record<string, string>, baseUrl = baseUrlOf("permissive")) =>
  rawRequest("GET", "/dev/outbox", { baseUrl, headers });

/** An address of this machine that is not loopback, if it has one: a connection to it has a non-loopback socket. */
function nonLoopbackAddress(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === "IPv4") return a.address;
  }
  return null;
}

describe("the development outbox", () => {
  it("keeps each message as a file and lists it on /dev/outbox for a loopback socket with a local Host", async () => {
    const acct = await newAccount({ server: "permissive" });
    const dir = path.join(inject("permissiveDataDir"), "outbox");
    // The mail job sends it a moment after the sign-up (durable mail), and other tests' mails are there
    // already: wait for this account's own file.
    const mine = () =>
      (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : []).filter((f) =>
        readFileSync(path.join(dir, f), "utf8").includes(acct.email),
      );
    let files: string[] = [];
    for (let i = 0; i < 100 && !files.length; i++) {
      files = mine();
      if (!files.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(files.length).toBeGreaterThan(0);
    for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, `[::1]:${port()}`, "localhost"]) {
      // A forwarded address from elsewhere does not hide the developer's own socket either.
      const page = await outbox({ host, "x-forwarded-for": "203.0.113.7" });
      expect(page.status, host).toBe(200);
      expect(page.text).toContain(acct.email);
      expect(page.text).toMatch(/\/verify-email\?token=/);
    }
  });

  it("a Host that is not local (DNS rebinding) is 404, even on a loopback socket", async () => {
    for (const host of [
      "evil.example",
      `rebind.evil.example:${port()}`,
      `localhost.evil.example:${port()}`,
      `127.0.0.1.nip.io:${port()}`,
      `192.0.2.2:${port()}`,
    ]) {
      const page = await outbox({ host, "x-forwarded-for": "127.0.0.1" });
      expect(page.status, host).toBe(404);
      expect(page.text).not.toMatch(/verify-email\?token=/);
    }
  });

  it("X-Forwarded-For never opens it: every loopback spelling of issue #22, from a non-loopback socket, is 404", async (ctx) => {
    const address = nonLoopbackAddress();
    if (!address) return ctx.skip();
    const viaNetwork = `http://${address}:${port()}`;
    for (const xff of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "203.0.113.9, 127.0.0.1"]) {
      for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, `${address}:${port()}`]) {
        const page = await outbox({ host, "x-forwarded-for": xff }, viaNetwork);
        expect(page.status, `${xff} / ${host}`).toBe(404);
        expect(page.text).not.toMatch(/verify-email\?token=/);
      }
    }
  });

  it("is not there on a server that sends by SMTP", async () => {
    const strict = new URL(baseUrlOf("strict"));
    const smtp = await rawRequest("GET", "/dev/outbox", {
      server: "strict",
      headers: { host: `localhost:${strict.port}`, "x-forwarded-for": "127.0.0.1" },
    });
    expect(smtp.status).toBe(404);
  });
});

describe("HOST, the listen address", () => {
  it("HOST=127.0.0.1 answers on loopback and refuses a connection from the network", async (ctx) => {
    const address = nonLoopbackAddress();
    if (!address) return ctx.skip();
    const server = await startBuiltServer({
      name: "it-listen-host",
      env: {
        AUTH_SECRET: TEST_AUTH_SECRET,
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        DATABASE_URL: inject("embedded") ? undefined : await siblingDatabase(inject("databaseUrl"), "listenhost"),
      },
    });
    try {
      const serverPort = new URL(server.baseUrl).port;
      expect((await rawRequest("GET", "/api/health", { baseUrl: server.baseUrl })).status).toBe(200);
      const fromNetwork = await rawRequest("GET", "/api/health", { baseUrl: `http://${address}:${serverPort}` }).then(
        (r) => `answered ${r.status}`,
        (err: NodeJS.ErrnoException) => err.code,
      );
      expect(fromNetwork).toBe("ECONNREFUSED");
    } finally {
      await server.stop();
    }
  }, 150_000);
});
