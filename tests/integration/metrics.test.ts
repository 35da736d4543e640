import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newCallSid } from "../../src/twilio-simulator/twilio-simulator";
import { baseUrlOf, newActiveAccount, numberBody } from "../support/api";
import { startReceiver } from "../support/receiver";
import { TEST_METRICS_TOKEN } from "../support/test-secrets";

// /metrics (docs/operations.md, "Metrics"): Prometheus' text format, for this
// machine only unless METRICS_TOKEN is set (the Stripe-mode server has one),
// and no label that holds a customer's data.
const XML = '<?xml version="1.0" encoding="UTF-8"?><Response><Say>metered</Say></Response>';

/** GET /metrics with a chosen Host header (fetch does not let a test set it). */
function scrape(baseUrl: string, opts: { host?: string; token?: string } = {}) {
  const url = new URL(`${baseUrl}/metrics`);
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    const req = http.get(
      url,
      {
        headers: {
          host: opts.host ?? url.host,
          ...(opts.token && { authorization: `Bearer ${opts.token}` }),
        },
      },
      (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body }));
      },
    );
    req.on("error", reject);
  });
}

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== "{" && rest[0] !== " ") continue;
    if (!Object.entries(labels).every(([k, v]) => rest.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return undefined;
}

describe("GET /metrics", () => {
  let backend: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    backend = await startReceiver((_r, res) => res.writeHead(200, { "content-type": "text/xml" }).end(XML));
  });
  afterAll(() => backend?.close());

  it("counts a voice request: its answer's form, the backend's time, Routekit's own time and the route", async () => {
    const account = await newActiveAccount({ server: "permissive" });
    const to = numberBody().phoneNumber;
    const created = await account.as("POST", "/api/phone-numbers", {
      body: numberBody({ phoneNumber: to, onCallStartUrl: backend.url("/start"), onCallEndUrl: backend.url("/end") }),
    });
    expect(created.status).toBe(201);
    const before = await scrape(baseUrlOf("permissive"));
    const xmlBefore = sample(before.body, "routekit_engine_answers_total", { form: "xml" }) ?? 0;
    const primaryBefore = sample(before.body, "routekit_backend_answer_seconds_count", { role: "primary" }) ?? 0;

    const res = await fetch(account.engineVoiceUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        CallSid: newCallSid(),
        AccountSid: `AC${"7".repeat(32)}`,
        From: "+14155550100",
        To: to,
        Direction: "inbound",
        CallStatus: "ringing",
      }).toString(),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("metered");

    const after = await scrape(baseUrlOf("permissive"));
    expect(after.status).toBe(200);
    expect(after.type).toContain("text/plain");
    expect(sample(after.body, "routekit_engine_answers_total", { form: "xml" })).toBe(xmlBefore + 1);
    expect(sample(after.body, "routekit_backend_answer_seconds_count", { role: "primary" })).toBe(primaryBefore + 1);
    expect(sample(after.body, "routekit_engine_overhead_seconds_count")).toBeGreaterThan(0);
    expect(
      sample(after.body, "routekit_http_requests_total", { route: "engine.voice", status: "200" }),
    ).toBeGreaterThan(0);
    expect(
      sample(after.body, "routekit_http_requests_total", { route: "/api/phone-numbers", method: "POST" }),
    ).toBeGreaterThan(0);
    // The pool, the journal, the delivery queue and the process are there too.
    expect(sample(after.body, "routekit_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    expect(sample(after.body, "routekit_journal_depth")).toBe(0);
    expect(sample(after.body, "routekit_delivery_queue_depth", { state: "due" })).toBeGreaterThanOrEqual(0);
    expect(sample(after.body, "process_cpu_seconds_total")).toBeGreaterThan(0);

    // No label carries a customer's data: no routing token, number, SID or account id.
    const token = new URL(account.engineVoiceUrl).pathname.split("/").pop()!;
    for (const secretish of [token, to, account.id, account.apiKey.slice(0, 12)])
      expect(after.body).not.toContain(secretish);
  });

  it("answers only this machine without METRICS_TOKEN: another Host is 404", async () => {
    expect((await scrape(baseUrlOf("strict"))).status).toBe(200);
    const elsewhere = await scrape(baseUrlOf("strict"), { host: "routekit.example.com" });
    expect(elsewhere.status).toBe(404);
    expect(JSON.parse(elsewhere.body).error.code).toBe("NOT_FOUND");
  });

  it("asks for the bearer token when METRICS_TOKEN is set, even from this machine", async () => {
    expect((await scrape(baseUrlOf("stripe"))).status).toBe(404);
    expect((await scrape(baseUrlOf("stripe"), { token: "wrong-token-of-some-length" })).status).toBe(404);
    const ok = await scrape(baseUrlOf("stripe"), { token: TEST_METRICS_TOKEN, host: "routekit.example.com" });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain("routekit_http_requests_total");
  });

  it.skipIf(!existsSync("/usr/bin/promtool"))("is what promtool check metrics accepts", async () => {
    const { body } = await scrape(baseUrlOf("permissive"));
    const dir = mkdtempSync(path.join(tmpdir(), "routekit-metrics-"));
    try {
      const file = path.join(dir, "metrics.txt");
      writeFileSync(file, body);
      // promtool reads the exposition on stdin; lint problems (names, units, help) fail it.
      const out = execFileSync("sh", ["-c", `promtool check metrics < "${file}" 2>&1`], { encoding: "utf8" });
      expect(out.trim()).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
