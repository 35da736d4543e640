// The bare reference (bench/reference/) as the benchmarks start it: its server and the customer's
// backend, each a plain node process on a free port, and the one account its /seed makes.
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../../scripts/built-server";

/** Every script started here, so that a benchmark can stop them all at its end. */
export const scripts: ChildProcess[] = [];

/**
 * Starts `node <file>` on a free port (PORT) and waits until `readyPath` answers.
 * REF_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof-ref" profiles the reference and the customer's
 * backend, as SERVER_NODE_ARGS does the server.
 */
export async function startScript(
  file: string,
  env: Record<string, string>,
  readyPath: string,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env.REF_NODE_ARGS ?? "").split(" ").filter(Boolean), file], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  scripts.push(child);
  const url = `http://127.0.0.1:${port}`;
  for (let t = 0; ; t++) {
    if (child.exitCode !== null) throw new Error(`${file} exited with ${child.exitCode}`);
    const status = await fetch(url + readyPath, { method: readyPath === "/" ? "POST" : "GET" }).then(
      (r) => r.status,
      () => 0,
    );
    if (status) break;
    if (t > 100) throw new Error(`${file} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, child };
}

/** The customer's backend: answers call.started with `<Say>hi</Say>` at /call-start. */
export const startCustomerBackend = () => startScript("bench/reference/customer-backend.mjs", {}, "/");

/** The reference server on `databaseUrl`, with its one ACTIVE account whose number's onCallStartUrl is given. */
export async function startReference(
  databaseUrl: string,
  onCallStartUrl: string,
): Promise<{ url: string; child: ChildProcess; apiKey: string; voicePath: string; to: string }> {
  const ref = await startScript("bench/reference/ref-server.mjs", { DATABASE_URL: databaseUrl }, "/health");
  const seeded = (await (
    await fetch(`${ref.url}/seed`, { method: "POST", body: JSON.stringify({ onCallStartUrl }) })
  ).json()) as { apiKey: string; routingToken: string; phoneNumber: string };
  return {
    ...ref,
    apiKey: seeded.apiKey,
    voicePath: `/api/engine/voice/${seeded.routingToken}`,
    to: seeded.phoneNumber,
  };
}
