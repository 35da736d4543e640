// Would the engine keep its p99 as a Next.js route handler? (The custom server's reason to exist, src/server/main.ts.)
//   npx tsx bench/engine-via-next.ts [runs=2] [callsPerSecond=100] [seconds=15]
// Builds a variant of this checkout in a temporary directory where POST /api/engine/voice/* is an
// App Router route handler (the same engine code behind a Request/Response adapter) and the custom
// server hands every request to Next.js; then runs bench/engine-overhead.ts against this checkout's
// build and the variant's, alternately, each on a fresh PostgreSQL database, and prints both.
// This checkout must be built (`npm run build`). The variant (under .worktrees/) is deleted afterwards.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";

const runs = Number(process.argv[2] ?? 2);
const rate = process.argv[3] ?? "100";
const seconds = process.argv[4] ?? "15";
const ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const here = process.cwd();

// The variant's route handler: what serveEngine (src/server/engine/engine-route.ts) does, on Request and Response.
const ROUTE = `import { AppError } from "@/server/errors/app-error";
import { readBody } from "@/server/http/body";
import { errorResponse } from "@/server/http/error-response";
import { REQUEST_ID_HEADER, requestContextOf } from "@/server/http/request-context";
import { isTerminal } from "@/server/services/calls/call-status";
import { parseEngineParams, validateEngineParams } from "@/server/engine/engine-params";
import { engineToken } from "@/server/engine/engine-route";
import { handleFinalStatus } from "@/server/engine/final-status-journal";
import { handleEngineRequest } from "@/server/engine/handle-engine-request";

export const dynamic = "force-dynamic";

export async function POST(req: Request): Promise<Response> {
  const { requestId } = requestContextOf(req.headers);
  try {
    const url = new URL(req.url);
    const pathAndQuery = url.pathname + url.search;
    const token = engineToken(pathAndQuery);
    if (!token) throw new AppError("NOT_FOUND", "Unknown engine URL.");
    const params = parseEngineParams(await readBody(req));
    validateEngineParams(params);
    const request = { routingToken: token, pathAndQuery, callId: url.searchParams.get("call"), params, signature: req.headers.get("x-twilio-signature") };
    const twiml = isTerminal(params.CallStatus!) ? await handleFinalStatus(request) : await handleEngineRequest(request);
    return new Response(twiml, { status: 200, headers: { "content-type": "text/xml; charset=utf-8", [REQUEST_ID_HEADER]: requestId } });
  } catch (err) {
    return errorResponse(err, req, requestId);
  }
}
`;
const SHORT_CUT =
  "if (passed.url?.startsWith(ENGINE_PATH_PREFIX)) void serveEngine(passed, res, requestId);\n        else void handle(passed, res);";

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(statement).finally(() => client.end());
}

function buildVariant(): string {
  // Inside the checkout (ignored by git), so node_modules can be hard-linked (Turbopack will not follow a link out of its root).
  mkdirSync(path.join(here, ".worktrees"), { recursive: true });
  const dir = mkdtempSync(path.join(here, ".worktrees", "engine-via-next-"));
  const files = execFileSync("git", ["ls-files", "-z"], { encoding: "utf8" }).split("\0").filter(Boolean);
  for (const f of files) cpSync(f, path.join(dir, f), { recursive: false, force: true, dereference: false });
  execFileSync("cp", ["-al", path.join(here, "node_modules"), path.join(dir, "node_modules")]);
  const main = path.join(dir, "src/server/main.ts");
  const source = readFileSync(main, "utf8");
  if (!source.includes(SHORT_CUT))
    throw new Error("src/server/main.ts no longer has the engine's short cut this bench removes: update the bench");
  writeFileSync(main, source.replace(SHORT_CUT, "void handle(passed, res);"));
  const routeDir = path.join(dir, "src/app/api/engine/voice/[token]");
  mkdirSync(routeDir, { recursive: true });
  writeFileSync(path.join(routeDir, "route.ts"), ROUTE);
  console.log(`building the variant in ${dir} …`);
  const built = spawnSync("npm", ["run", "build"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  if (built.status !== 0) throw new Error("the variant did not build");
  return dir;
}

type Summary = { p99: number; p50: number; cpu: number };
type Result = { voice: Summary; completed: Summary; steady: Summary; errors: number };

async function runOnce(cwd: string, n: number): Promise<Result> {
  const db = `rk_bench_via_next_${n}`;
  await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${db}`);
  try {
    const out = spawnSync(
      process.execPath,
      [path.join(here, "node_modules/tsx/dist/cli.mjs"), path.join(here, "bench/engine-overhead.ts"), rate, seconds],
      {
        cwd,
        env: { ...process.env, DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/${db}` },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const line = out.stdout.split("\n").find((l) => l.startsWith('{"bench":"engine-overhead"'));
    if (out.status !== 0 || !line)
      throw new Error(`engine-overhead failed in ${cwd}:\n${out.stdout.slice(-2000)}\n${out.stderr.slice(-2000)}`);
    type Phase = {
      latencyMs: { p50: number; p99: number };
      overheadMs?: { p50: number; p99: number };
      serverCpuMsPerRequest: number;
      errors: number;
    };
    const r = JSON.parse(line) as { voice: Phase; completed: Phase; steadyState: { voice: Phase } };
    const of = (p: Phase): Summary => ({
      p50: (p.overheadMs ?? p.latencyMs).p50,
      p99: (p.overheadMs ?? p.latencyMs).p99,
      cpu: p.serverCpuMsPerRequest,
    });
    return {
      voice: of(r.voice),
      completed: of(r.completed),
      steady: of(r.steadyState.voice),
      errors: r.voice.errors + r.completed.errors + r.steadyState.voice.errors,
    };
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  }
}

const variant = buildVariant();
try {
  const rows: { build: string; r: Result }[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [build, cwd] of [
      ["custom server (engine outside Next.js)", here],
      ["engine as a Next.js route handler", variant],
    ] as const) {
      console.log(`run ${i + 1}: ${build} …`);
      rows.push({ build, r: await runOnce(cwd, rows.length) });
    }
  }
  console.log(`\n${rate} calls/s for ${seconds} s per phase; overhead = our latency less the backend's own handling`);
  console.log(
    "| build | voice p50 / p99 | completed p50 / p99 | steady-state voice p50 / p99 | server CPU: voice / completed / steady | errors |\n|---|---|---|---|---|---|",
  );
  for (const { build, r } of rows) {
    console.log(
      `| ${build} | ${r.voice.p50} / ${r.voice.p99} ms | ${r.completed.p50} / ${r.completed.p99} ms | ${r.steady.p50} / ${r.steady.p99} ms | ${r.voice.cpu} / ${r.completed.cpu} / ${r.steady.cpu} ms | ${r.errors} |`,
    );
  }
} finally {
  rmSync(variant, { recursive: true, force: true });
}
