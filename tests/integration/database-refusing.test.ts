import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { randomIp } from "../support/api";
import { until } from "../support/until";
import { TEST_AUTH_SECRET } from "../support/test-secrets";

// docs/decisions.md §3: while PostgreSQL refuses connections, every answer that needs
// the database is 503 SERVICE_UNAVAILABLE with Retry-After, never a 500. Real
// refusals, not a stand-in: the server's database is set ALLOW_CONNECTIONS
// false and its sessions are ended with pg_terminate_backend, so every new
// connection gets SQLSTATE 55000 ("not currently accepting connections").
// PostgreSQL only: the embedded database lives inside the server.
let server: BuiltServer;
let admin: pg.Client;
let databaseName: string;
let apiKey: string;

async function refuseConnections(refuse: boolean): Promise<void> {
  await admin.query(`ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS ${refuse ? "false" : "true"}`);
  if (refuse)
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [databaseName],
    );
}

async function send(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { "x-forwarded-for": randomIp(), authorization: `Bearer ${apiKey}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(server.baseUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

describe.skipIf(inject("embedded"))("PostgreSQL refusing connections (SQLSTATE 55000)", () => {
  beforeAll(async () => {
    const url = await siblingDatabase(inject("databaseUrl"), "refusing");
    databaseName = new URL(url).pathname.slice(1);
    const adminUrl = new URL(url);
    adminUrl.pathname = "/postgres";
    admin = new pg.Client({ connectionString: adminUrl.href });
    await admin.connect();
    server = await startBuiltServer({ name: "it-refusing", env: { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: url } });
    const reg = await fetch(`${server.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": randomIp() },
      body: JSON.stringify({
        email: `refusing-${randomBytes(5).toString("hex")}@example.com`,
        password: "correct horse battery",
      }),
    });
    expect(reg.status).toBe(201);
    apiKey = ((await reg.json()) as { apiKey: string }).apiKey;
  });
  afterAll(async () => {
    if (admin) {
      await refuseConnections(false).catch(() => undefined);
      await admin.end();
    }
    await server?.stop({ keepData: Boolean(process.env.KEEP_TEST_DATA) });
  });

  it("every operation that needs the database answers 503 with Retry-After in the envelope, and works again after", async () => {
    expect((await send("GET", "/api/account")).status).toBe(200);
    await refuseConnections(true);
    const requests: [string, string, unknown?][] = [
      ["GET", "/api/account"],
      ["GET", "/api/calls?limit=5"],
      ["GET", "/api/usage"],
      ["GET", "/api/phone-numbers"],
      ["POST", "/api/api-keys", { label: "during the outage" }],
      ["GET", "/api/ready"],
      ["GET", "/api/trpc/account.get"],
    ];
    for (const [method, path, body] of requests) {
      const answer = await send(method, path, body);
      const name = `${method} ${path}`;
      expect(answer.status, `${name}: ${JSON.stringify(answer.body)}`).toBe(503);
      // tRPC answers in its own shape (the envelope as data.appError), unless it failed before any procedure ran.
      const error = answer.body.error.data?.appError ?? answer.body.error;
      expect(error.code, name).toBe("SERVICE_UNAVAILABLE");
      expect(Number(answer.headers.get("retry-after")), name).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get("x-request-id"), name).toBeTruthy();
      expect(answer.headers.get("x-content-type-options"), name).toBe("nosniff");
      // Nothing of the database's own words: no SQLSTATE, no database name.
      expect(JSON.stringify(answer.body), name).not.toMatch(/55000|accepting connections|refusing/);
    }
    // The liveness probe needs no database.
    expect((await send("GET", "/api/health")).status).toBe(200);

    await refuseConnections(false);
    await until(
      async () => (await send("GET", "/api/account")).status === 200,
      "the account answers again once connections are allowed",
    );
  });
});
