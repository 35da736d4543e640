import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect, inject } from "vitest";
import { siblingDatabase, startBuiltServer, type BuiltServer } from "../../scripts/built-server";
import { startTwilioSimulator, type TwilioSimulator } from "../../src/twilio-simulator/twilio-simulator";
import { type ApiResponse, randomIp } from "./api";
import { checkContract } from "./contract";
import { type Reply, startReceiver } from "./receiver";
import { seeds } from "./seed";
import { TEST_AUTH_SECRET } from "./test-secrets";

/** A paid account of the file's server, and its requests with its API key from one client address. */
export type SimulatedCustomer = {
  id: string;
  /** The client address its requests come from. */
  ip: string;
  apiKey: string;
  engineVoiceUrl: string;
  as<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
};

export type SimulatedTwilioServer = {
  server: BuiltServer;
  twilio: TwilioSimulator;
  /** The server's own database. */
  db: pg.Pool;
  /** The customers' backend: by default `/start` answers TwiML that says hello, every other path `ok`. */
  backend: Awaited<ReturnType<typeof startReceiver>>;
  /** One request to the server, its answer checked against the OpenAPI document. */
  api(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; ip?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  customer(): Promise<SimulatedCustomer>;
  /** A phone number's body with the backend's URLs. */
  numberBody(
    phoneNumber: string,
    extra?: Record<string, unknown>,
  ): { phoneNumber: string; onCallStartUrl: string; onCallEndUrl: string } & Record<string, unknown>;
  close(): Promise<void>;
};

/**
 * A built server of a test file's own (its database a sibling named `database`) whose Twilio is the
 * file's own simulator, so the file can run beside the others, with a customer backend and paid
 * customers (payment itself is tested elsewhere: set directly). `emailTag` starts their addresses;
 * `simulatorAccounts` are the simulator's accounts from the start; `backendReply` answers the backend's
 * requests instead of the default.
 */
export async function startSimulatedTwilioServer(opts: {
  name: string;
  database: string;
  emailTag: string;
  simulatorAccounts?: Record<string, string>;
  backendReply?: Reply;
}): Promise<SimulatedTwilioServer> {
  const twilio = await startTwilioSimulator({ accounts: opts.simulatorAccounts ?? {}, host: "127.0.0.1" });
  const external = inject("embedded") ? undefined : inject("databaseUrl");
  const server = await startBuiltServer({
    name: opts.name,
    env: {
      AUTH_SECRET: TEST_AUTH_SECRET,
      DATABASE_URL: external ? await siblingDatabase(external, opts.database) : undefined,
      CALLBACK_ALLOW_PRIVATE: "true",
      CALLBACK_START_TIMEOUT_MS: "1500",
      TWILIO_API_BASE_URL: twilio.url,
    },
  });
  const db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const backend = await startReceiver(
    opts.backendReply ??
      ((r, res) =>
        r.path.endsWith("/start")
          ? res.writeHead(200, { "content-type": "text/xml" }).end("<Response><Say>Hi</Say></Response>")
          : res.end("ok")),
  );

  const api: SimulatedTwilioServer["api"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { "x-forwarded-for": o.ip ?? randomIp(), ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(server.baseUrl + path, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    const text = await res.text();
    const body = text ? JSON.parse(text) : undefined;
    await checkContract(method, path, res.status, body);
    return { status: res.status, body, text, headers: res.headers };
  };

  async function customer(): Promise<SimulatedCustomer> {
    const ip = randomIp();
    const reg = await api("POST", "/api/auth/register", {
      ip,
      body: {
        email: `${opts.emailTag}-${randomBytes(6).toString("hex")}@example.com`,
        password: "correct horse battery",
      },
    });
    expect(reg.status).toBe(201);
    await seeds(db).update("Account", { id: reg.body.account.id }, { status: "ACTIVE" });
    return {
      id: reg.body.account.id,
      ip,
      apiKey: reg.body.apiKey,
      engineVoiceUrl: reg.body.engineVoiceUrl,
      as: (method, path, body, headers) =>
        api(method, path, {
          token: reg.body.apiKey,
          ip,
          ...(body !== undefined && { body }),
          ...(headers && { headers }),
        }),
    };
  }

  return {
    server,
    twilio,
    db,
    backend,
    api,
    customer,
    numberBody: (phoneNumber, extra = {}) => ({
      phoneNumber,
      onCallStartUrl: backend.url("/start"),
      onCallEndUrl: backend.url("/end"),
      ...extra,
    }),
    async close() {
      await db.end();
      await server.stop({ keepData: Boolean(process.env.KEEP_TEST_DATA) });
      await twilio.close();
      await backend.close();
    },
  };
}
