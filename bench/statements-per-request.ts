// The PostgreSQL statements behind one voice request and one completed status callback, counted by the server.
//   DATABASE_URL=postgresql://postgres@127.0.0.1:PORT/scratch npx tsx bench/statements-per-request.ts [calls=200]
// Needs a PostgreSQL server with pg_stat_statements loaded (a throwaway one: initdb, then
// `pg_ctl -o "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all" start`,
// and `CREATE EXTENSION pg_stat_statements` in its `postgres` database), and an empty scratch
// database on it. Starts the BUILT server there, with a customer backend that answers at once;
// sends `calls` voice requests one after another, then each call's `completed` callback, and lists
// every statement each phase ran with its count per request (background work, such as the job
// queue's polling, shows as fractions), and the WAL written per request (records, bytes: the server's
// pg_stat_wal, so give the bench a server of its own). Every statement is one round trip in node-postgres.
import { randomInt } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { startBuiltServer } from "../scripts/built-server";
import { processCpuMs } from "./support/process-cpu";
import { newCallSid, SIMULATOR_ACCOUNT_SID } from "../src/twilio-simulator/twilio-simulator";

const calls = Number(process.argv[2] ?? 200);
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("Set DATABASE_URL to a scratch database on a server with pg_stat_statements loaded.");
const statsUrl = Object.assign(new URL(databaseUrl), { pathname: "/postgres" }).href;
const dbName = new URL(databaseUrl).pathname.slice(1);

const backend = http.createServer((req, res) => {
  req.resume();
  req.on("end", () =>
    req.url === "/start"
      ? res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>hi</Say></Response>")
      : res.writeHead(200).end(),
  );
});
await new Promise<void>((r) => backend.listen(0, "127.0.0.1", r));
const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
const server = await startBuiltServer({
  name: "bench-statements",
  env: { DATABASE_URL: databaseUrl, CALLBACK_ALLOW_PRIVATE: "true" },
});
const stats = new pg.Client({ connectionString: statsUrl });
await stats.connect();

try {
  const ip = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const reg = (await (
    await fetch(`${server.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": ip },
      body: JSON.stringify({ email: `statements-${Date.now()}@example.com`, password: "benchmark-password" }),
    })
  ).json()) as { apiKey: string; checkoutUrl: string; engineVoiceUrl: string };
  await (await fetch(reg.checkoutUrl, { method: "POST", redirect: "manual" })).text();
  const number = "+14155550123";
  const added = await fetch(`${server.baseUrl}/api/phone-numbers`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${reg.apiKey}`, "x-forwarded-for": ip },
    body: JSON.stringify({
      phoneNumber: number,
      onCallStartUrl: `${backendUrl}/start`,
      onCallEndUrl: `${backendUrl}/end`,
    }),
  });
  if (added.status !== 201) throw new Error(`adding the number: ${added.status}`);

  const post = async (params: Record<string, string>) => {
    const res = await fetch(reg.engineVoiceUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(params),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`engine: ${res.status} ${text}`);
    return text;
  };
  const base = (sid: string) => ({
    CallSid: sid,
    AccountSid: SIMULATOR_ACCOUNT_SID,
    From: "+14155550100",
    To: number,
    Direction: "inbound",
    ApiVersion: "2010-04-01",
  });
  const voice = (sid: string) => post({ ...base(sid), CallStatus: "ringing" });
  const completed = (sid: string) =>
    post({
      ...base(sid),
      CallStatus: "completed",
      CallbackSource: "call-progress-events",
      SequenceNumber: "0",
      CallDuration: "42",
    });

  // Warm-up: every statement prepared, the pool full.
  for (let i = 0; i < 20; i++) {
    const sid = newCallSid();
    await voice(sid);
    await completed(sid);
  }
  await new Promise((r) => setTimeout(r, 2000));

  // CPU (ms) so far of the server process and of the database's backends (this host's PostgreSQL).
  const cpu = async () => {
    const { rows } = await stats.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [
      dbName,
    ]);
    const backends = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        backends.set(pid, processCpuMs(pid));
      } catch {
        // gone meanwhile
      }
    }
    return { server: processCpuMs(server.child.pid!), backends };
  };
  const phase = async (name: string, run: () => Promise<void>) => {
    await stats.query("SELECT pg_stat_statements_reset()");
    // The WAL written: every row, index entry, row lock and commit is a record (cluster-wide: use a cluster of its own).
    await stats.query("SELECT pg_stat_reset_shared('wal')");
    const cpu0 = await cpu();
    const started = performance.now();
    await run();
    const ms = performance.now() - started;
    // What runs after the answer (the call log, queued deliveries) lands within this.
    await new Promise((r) => setTimeout(r, 3000));
    const cpu1 = await cpu();
    let databaseMs = 0;
    for (const [pid, used] of cpu1.backends) databaseMs += used - (cpu0.backends.get(pid) ?? 0);
    // Plans: how often PostgreSQL planned the statement (with pg_stat_statements.track_planning on; 0 otherwise):
    // a prepared statement on a custom plan is planned on every execution.
    const { rows } = await stats.query<{ calls: string; query: string; mean: number; plans: string; plan: number }>(
      `SELECT s.calls, s.query, s.mean_exec_time AS mean, s.plans, s.mean_plan_time AS plan
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
       WHERE d.datname = $1 ORDER BY s.calls DESC`,
      [dbName],
    );
    const total = rows.reduce((a, r) => a + Number(r.calls), 0);
    const { rows: wal } = await stats.query<{ records: string; bytes: string; fpi: string; syncs: string }>(
      "SELECT wal_records AS records, wal_bytes AS bytes, wal_fpi AS fpi, wal_sync AS syncs FROM pg_stat_wal",
    );
    const perCall = (x: string | undefined) => (Number(x ?? 0) / calls).toFixed(1);
    console.log(
      `\n## ${name}: ${calls} requests in ${Math.round(ms)} ms (${(ms / calls).toFixed(2)} ms each, one at a time); ${(total / calls).toFixed(2)} statements per request (all, incl. background); WAL per request: ${perCall(wal[0]?.records)} records, ${perCall(wal[0]?.bytes)} bytes (${perCall(wal[0]?.fpi)} full pages), ${(Number(wal[0]?.syncs ?? 0) / calls).toFixed(2)} WAL flushes (fsync); CPU per request (incl. 3 s of background after): server ${((cpu1.server - cpu0.server) / calls).toFixed(2)} ms, PostgreSQL ${(databaseMs / calls).toFixed(2)} ms`,
    );
    console.log("| per request | mean ms | plans per call | mean plan ms | statement |\n|---|---|---|---|---|");
    for (const r of rows)
      console.log(
        `| ${(Number(r.calls) / calls).toFixed(2)} | ${r.mean.toFixed(3)} | ${(Number(r.plans) / Number(r.calls)).toFixed(2)} | ${r.plan.toFixed(3)} | ${r.query.replace(/\s+/g, " ").slice(0, 160)} |`,
      );
  };
  const sids = Array.from({ length: calls }, () => newCallSid());
  await phase("voice request (ringing)", async () => {
    for (const sid of sids) if (!(await voice(sid)).includes("<Say>hi</Say>")) throw new Error("fallback answer");
  });
  await phase("completed status callback", async () => {
    for (const sid of sids) await completed(sid);
  });
} finally {
  await stats.end();
  backend.close();
  await server.stop({ keepData: Boolean(process.env.KEEP_BENCH_DATA) });
  if (process.env.KEEP_BENCH_DATA) console.log(`server log kept in ${server.log}`);
}
process.exit(0);
