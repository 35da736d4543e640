/**
 * What the API benchmarks share: a scratch PostgreSQL database, the built
 * server on it, paid accounts, sequential timed GETs and percentiles.
 */
import { randomInt } from "node:crypto";
import http from "node:http";
import pg from "pg";
import { startBuiltServer, type BuiltServer } from "../../scripts/built-server";

const ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(statement).finally(() => client.end());
}

/**
 * DATABASE_URL when set (use a scratch database), else a fresh database `name` on the local
 * PostgreSQL (PGlite is too slow to seed a million rows), dropped by `drop()`.
 */
export async function scratchDatabase(name: string): Promise<{ url: string; label: string; drop(): Promise<void> }> {
  const given = process.env.DATABASE_URL;
  if (given) return { url: given, label: "PostgreSQL (DATABASE_URL)", drop: async () => undefined };
  console.log(`DATABASE_URL is unset: using a scratch PostgreSQL database ${name}`);
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${name}`);
  return {
    url: `postgresql://postgres@127.0.0.1:5432/${name}`,
    label: `PostgreSQL (scratch ${name})`,
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** The built server on `databaseUrl`, at production's log level: the request log line is part of the cost. */
export function startBenchServer(name: string, databaseUrl: string): Promise<BuiltServer> {
  return startBuiltServer({ name, env: { DATABASE_URL: databaseUrl, LOG_LEVEL: process.env.LOG_LEVEL ?? "info" } });
}

/** A registered account that has paid (local billing: the checkout page's Pay button POSTs). */
export async function newPaidAccount(
  baseUrl: string,
  tag: string,
): Promise<{ id: string; apiKey: string; engineVoiceUrl: string }> {
  const res = await fetch(`${baseUrl}/api/auth/register`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-forwarded-for": `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`,
    },
    body: JSON.stringify({ email: `bench-${tag}-${Date.now()}@example.com`, password: "benchmark-password" }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as {
    account: { id: string };
    apiKey: string;
    checkoutUrl: string;
    engineVoiceUrl: string;
  };
  await (await fetch(body.checkoutUrl, { method: "POST", redirect: "manual" })).text();
  return { id: body.account.id, apiKey: body.apiKey, engineVoiceUrl: body.engineVoiceUrl };
}

/**
 * The two accounts a history-size bench compares, seeded in SQL (`seed(client, accountId, count)`),
 * then VACUUM ANALYZE on `tables` (real statistics and a visibility map, as autovacuum would have
 * long since). `inspect` reads what the bench needs from the seeded data before the client closes.
 */
export async function seededAccounts<A extends { id: string }, R>(opts: {
  databaseUrl: string;
  accounts: Record<"small" | "large", A>;
  sizes: Record<"small" | "large", number>;
  seed: (client: pg.Client, accountId: string, count: number) => Promise<unknown>;
  tables: string[];
  inspect: (client: pg.Client) => Promise<R>;
}): Promise<{ seedSeconds: number; inspected: R }> {
  const client = new pg.Client({ connectionString: opts.databaseUrl });
  await client.connect();
  try {
    const started = performance.now();
    for (const name of ["small", "large"] as const) await opts.seed(client, opts.accounts[name].id, opts.sizes[name]);
    const seedSeconds = Math.round((performance.now() - started) / 100) / 10;
    await client.query(`VACUUM ANALYZE ${opts.tables.map((t) => `"${t}"`).join(", ")}`);
    return { seedSeconds, inspected: await opts.inspect(client) };
  } finally {
    await client.end();
  }
}

export type TimedGet = (path: string, apiKey: string) => Promise<{ ms: number; status: number; body: string }>;

/** GETs on one keep-alive connection, one in flight: each is timed alone, never behind a queue of ours. */
export function sequentialGetter(baseUrl: string): { get: TimedGet; close(): void } {
  const port = Number(new URL(baseUrl).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get: TimedGet = (path, apiKey) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      http
        .get({ host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, body }));
        })
        .on("error", reject);
    });
  return { get, close: () => agent.destroy() };
}

const pct = (sorted: number[], p: number) =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN) * 100) / 100;

/** Count and percentiles (ms, two decimals) of a sample. */
export function latencyStats(xs: number[]): { n: number; p50: number; p95: number; p99: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: pct(s, 50), p95: pct(s, 95), p99: pct(s, 99), max: pct(s, 100) };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
