import type { Role } from "../../src/shared/roles";
import { randomBytes, randomInt } from "node:crypto";
import { inject } from "vitest";
import pg from "pg";
import { checkContract } from "./contract";
import { type Seeds, seeds } from "./seed";

export type ApiResponse<T = any> = { status: number; headers: Headers; body: T; text: string };

export type Server = "strict" | "permissive" | "stripe";

export function baseUrlOf(server: Server = "strict"): string {
  return { strict: inject("baseUrl"), permissive: inject("permissiveBaseUrl"), stripe: inject("stripeBaseUrl") }[
    server
  ];
}

export type CallOptions = {
  /** The strict server (production callback policy, the default) or the permissive one. */
  server?: Server;
  body?: unknown;
  /** Sent as is, for malformed or oversized bodies. */
  rawBody?: string;
  token?: string | null;
  headers?: Record<string, string>;
  ip?: string;
};

/**
 * A distinct client address per test client (the server runs with TRUST_PROXY), which no other call of this
 * run uses: each vitest worker (VITEST_POOL_ID) walks its own quarter of 198.19.0.0/16 (64 blocks of 254
 * hosts) from a random start; tests that pick their own addresses use 198.18. Drawn at random, two calls of a
 * run sometimes shared one, and a rate-limit test then met another test's registrations from "its" address.
 */
const WORKER = (Number(process.env.VITEST_POOL_ID ?? 1) - 1) % 4;
const BLOCKS_PER_WORKER = 64;
let nextHost = randomInt(0, BLOCKS_PER_WORKER * 254);
export function randomIp(): string {
  const n = nextHost++ % (BLOCKS_PER_WORKER * 254);
  const block = WORKER * BLOCKS_PER_WORKER + Math.floor(n / 254);
  return `198.19.${block}.${(n % 254) + 1}`;
}

export async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? randomIp(), ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined = opts.rawBody;
  if (body === undefined && opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  const res = await fetch(baseUrlOf(opts.server) + path, { method, headers, body });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  await checkContract(method, path, res.status, parsed);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export function uniqueEmail(tag = "user"): string {
  return `${tag}-${randomBytes(6).toString("hex")}@example.com`;
}

export type TestAccount = {
  id: string;
  email: string;
  password: string;
  apiKey: string;
  token: string;
  checkoutUrl: string;
  engineVoiceUrl: string;
  ip: string;
  server: Server;
  /** Calls the API as this account with its API key. */
  as<T = any>(method: string, path: string, opts?: Omit<CallOptions, "token">): Promise<ApiResponse<T>>;
};

/** Each test makes its own account: tests never share a tenant. */
export async function newAccount(opts: { companyName?: string; server?: Server } = {}): Promise<TestAccount> {
  const ip = randomIp();
  const server = opts.server ?? "strict";
  const email = uniqueEmail();
  const password = `pw-${randomBytes(8).toString("hex")}`;
  const res = await call("POST", "/api/auth/register", {
    body: { email, password, companyName: opts.companyName },
    ip,
    server,
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  const account: TestAccount = {
    id: res.body.account.id,
    email,
    password,
    apiKey: res.body.apiKey,
    token: res.body.token,
    checkoutUrl: res.body.checkoutUrl,
    engineVoiceUrl: res.body.engineVoiceUrl,
    ip,
    server,
    as: (method, path, callOpts = {}) => call(method, path, { ip, server, ...callOpts, token: res.body.apiKey }),
  };
  return account;
}

const pools = new Map<Server, pg.Pool>();
/** Direct SQL against a server's database, to check what is stored at rest. */
export function sql(server: Server = "strict"): pg.Pool {
  let pool = pools.get(server);
  if (!pool) {
    const url = {
      strict: inject("databaseUrl"),
      permissive: inject("permissiveDatabaseUrl"),
      stripe: inject("stripeDatabaseUrl"),
    }[server];
    pool = new pg.Pool({ connectionString: url, max: 2 });
    pools.set(server, pool);
  }
  return pool;
}

/** Typed rows and changes on a server's database (support/seed.ts), for what the API cannot set up. */
export function seed(server: Server = "strict"): Seeds {
  return seeds(sql(server));
}

export type TestMember = {
  userId: string;
  email: string;
  password: string;
  role: Role;
  /** A login token for the member in the account they were added to. */
  token: string;
  /** Calls the API as this member with that token. */
  as<T = any>(method: string, path: string, opts?: Omit<CallOptions, "token">): Promise<ApiResponse<T>>;
};

/**
 * Another person in `account` at `role`: a user of their own (registered with an account of their own, as an
 * invited user who already had a login is) added as a member, signed in to `account`. Invitations are
 * members.test.ts's subject; everything else that needs a role starts here.
 */
export async function newMember(account: TestAccount, role: Role): Promise<TestMember> {
  const person = await newAccount({ server: account.server });
  const {
    rows: [user],
  } = await sql(account.server).query(`SELECT id FROM "User" WHERE email = $1`, [person.email]);
  await seed(account.server).membership({ accountId: account.id, userId: user.id, role });
  const res = await call("POST", "/api/auth/login", {
    body: { email: person.email, password: person.password, accountId: account.id },
    ip: person.ip,
    server: account.server,
  });
  if (res.status !== 200) throw new Error(`member login failed: ${res.status} ${res.text}`);
  const token: string = res.body.token;
  return {
    userId: user.id,
    email: person.email,
    password: person.password,
    role,
    token,
    as: (method, path, callOpts = {}) =>
      call(method, path, { ip: person.ip, server: account.server, ...callOpts, token }),
  };
}

/** An account that has paid (local billing mode: the checkout page's Pay button, a POST to the link, pays). */
export async function newActiveAccount(opts: { companyName?: string; server?: Server } = {}): Promise<TestAccount> {
  const account = await newAccount(opts);
  const res = await fetch(account.checkoutUrl, { method: "POST", redirect: "manual" });
  if (res.status !== 303) throw new Error(`checkout failed: ${res.status}`);
  await res.text();
  return account;
}

/** Billing drives suspension (Stripe webhooks or the local portal); tests set it directly. */
export async function suspend(account: TestAccount): Promise<void> {
  await seed(account.server).update("Account", { id: account.id }, { status: "SUSPENDED" });
}

/** A US number nobody else in this run uses: +1 (2xx-9xx) (2xx-9xx) xxxx. */
export function randomUsNumber(): string {
  return `+1${randomInt(200, 1000)}${randomInt(200, 1000)}${String(randomInt(0, 10000)).padStart(4, "0")}`;
}

export function numberBody(overrides: Record<string, unknown> = {}) {
  return {
    phoneNumber: randomUsNumber(),
    onCallStartUrl: "https://api.example.com/calls/start",
    onCallEndUrl: "https://api.example.com/calls/end",
    ...overrides,
  };
}
