import "server-only";
import { randomBytes, hkdfSync } from "node:crypto";
import { isIP } from "node:net";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { remember, rememberValue } from "./runtime/remember";
import { PUBLIC_BASE_URL_MAX_CHARS } from "../shared/schemas/bounds";

/**
 * The one place that reads process.env (docs/decisions.md §2). Everything else calls
 * `env()`. An invalid value stops the start with a message naming the variable.
 */

const bool = z
  .enum(["true", "false", "1", "0"], { message: "must be true or false" })
  .transform((v) => v === "true" || v === "1");

const httpUrl = z
  .string()
  .url({ message: "must be an absolute URL" })
  .refine((v) => /^https?:\/\//.test(v), { message: "must be an http(s) URL" });

const rawSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  // Not HOSTNAME: shells and containers set that to the machine's own name.
  HOST: z
    .string()
    .transform((v) => v.replace(/^\[(.*)\]$/, "$1"))
    .refine((v) => v === "localhost" || isIP(v) !== 0, { message: "must be an IP address or localhost" })
    .optional(),
  PUBLIC_BASE_URL: httpUrl.max(PUBLIC_BASE_URL_MAX_CHARS).optional(),
  DATABASE_URL: z
    .string()
    .refine((v) => /^postgres(ql)?:\/\//.test(v), { message: "must be a postgres:// or postgresql:// URL" })
    .optional(),
  DATA_DIR: z.string().default("./.data"),
  AUTH_SECRET: z.string().min(32, { message: "must be at least 32 characters" }).optional(),
  ENCRYPTION_KEY: z
    .string()
    .refine((v) => /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, "base64").length === 32, {
      message: "must be 32 bytes as 64 hex characters or base64",
    })
    .optional(),
  MONTHLY_BASE: z.coerce.number().nonnegative().default(49),
  PER_MINUTE_RATE: z.coerce.number().nonnegative().default(0.02),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_PRICE_BASE: z.string().optional(),
  STRIPE_PRICE_PER_MINUTE: z.string().optional(),
  STRIPE_METER_EVENT_NAME: z.string().optional(),
  STRIPE_API_BASE_URL: httpUrl.optional(),
  TWILIO_API_BASE_URL: httpUrl.optional(),
  CALLBACK_ALLOW_PRIVATE: bool.default(false),
  CALLBACK_START_TIMEOUT_MS: z.coerce.number().int().min(100).max(14_000).default(5000),
  // docs/decisions.md §12: the whole voice request (primary, retry, fallback URL) is answered within this; 3 s inside Twilio's 15 s.
  VOICE_ANSWER_BUDGET_MS: z.coerce.number().int().min(1000).max(14_000).default(12_000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(1000).max(120_000).default(20_000),
  // After SIGTERM, keep accepting while readiness says 503, so the load balancer stops sending before the listener closes.
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\//.test(v), { message: "must be a redis:// or rediss:// URL" })
    .optional(),
  TRUST_PROXY: bool.default(false),
  JOURNAL_MIN_FREE_MB: z.coerce.number().int().min(0).default(64),
  SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\/[^/]/.test(v), { message: "must be an smtp:// or smtps:// URL" })
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  // OpenTelemetry's own names (docs/operations.md "Tracing"): set, spans go there over OTLP/HTTP; unset, tracing is off.
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .refine((v) => v.split(",").every((pair) => /^[^=\s]+=.*$/.test(pair.trim())), {
      message: "must be comma-separated key=value pairs",
    })
    .optional(),
  OTEL_SERVICE_NAME: z.string().min(1).max(100).default("routekit"),
  // The fraction of the traces Routekit starts that are sampled (parent-based, by trace id); an incoming sampled flag wins.
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number()
    .min(0, "must be between 0 and 1")
    .max(1, "must be between 0 and 1")
    .default(1),
});

export type Env = {
  nodeEnv: "development" | "production" | "test";
  port: number;
  /** The address to listen on (HOST); unset, every interface. */
  host: string | undefined;
  publicBaseUrl: string;
  /** Set when an external PostgreSQL is configured; otherwise the embedded one is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Free space the final-status journal's disk must keep for the instance to be ready (bytes). */
  journalMinFreeBytes: number;
  authSecret: string;
  encryptionKey: Buffer;
  /** The HMAC key of idempotency request hashes (docs/decisions.md §20), derived from encryptionKey for that use only. */
  idempotencyHashKey: Buffer;
  monthlyBase: number;
  perMinuteRate: number;
  /** Stripe mode when STRIPE_SECRET_KEY is set; local billing mode otherwise. */
  billingMode: "stripe" | "local";
  stripe: {
    secretKey: string | undefined;
    webhookSecret: string | undefined;
    priceBase: string | undefined;
    pricePerMinute: string | undefined;
    meterEventName: string | undefined;
    apiBaseUrl: string | undefined;
  };
  twilioApiBaseUrl: string | undefined;
  callbackAllowPrivate: boolean;
  callbackStartTimeoutMs: number;
  /** VOICE_ANSWER_BUDGET_MS: every voice request is answered within this (docs/decisions.md §12). */
  voiceAnswerBudgetMs: number;
  /** SHUTDOWN_GRACE_MS: after SIGTERM, how long in-flight requests and delivery attempts get before the process exits. */
  shutdownGraceMs: number;
  /**
   * SHUTDOWN_DRAIN_MS: after SIGTERM, how long the instance goes on accepting requests while /api/ready answers
   * 503, before its listener closes (counted within the grace, and at most half of it).
   */
  shutdownDrainMs: number;
  redisUrl: string | undefined;
  trustProxy: boolean;
  /** Where mail goes; unset, messages are written to an outbox under DATA_DIR (a local development box). */
  smtpUrl: string | undefined;
  /** METRICS_TOKEN: the bearer token /metrics asks for; unset, it answers this machine's loopback only. */
  metricsToken: string | undefined;
  /** OpenTelemetry tracing: null when OTEL_EXPORTER_OTLP_ENDPOINT is unset (off, no SDK loaded). */
  tracing: {
    /** Spans are POSTed to `${endpoint}/v1/traces` (OTLP/HTTP, JSON). */
    endpoint: string;
    /** OTEL_EXPORTER_OTLP_HEADERS, e.g. a collector's API key. */
    headers: Record<string, string>;
    serviceName: string;
    /** OTEL_TRACES_SAMPLER_ARG: the share of new traces sampled, 0 to 1. */
    sampleRatio: number;
  } | null;
  logLevel: z.infer<typeof rawSchema>["LOG_LEVEL"];
};

export class EnvError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}

/** Empty strings count as unset, so `FOO=` in a shell or .env file means "default". */
function withoutEmpty(source: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v !== "") out[k] = v;
  return out;
}

/**
 * Validates the environment. `AUTH_SECRET` is generated once into DATA_DIR when
 * unset, unless this is a production deployment on an external database, where a
 * per-machine secret would break sessions across instances.
 */
export function parseEnv(
  source: Record<string, string | undefined> = process.env,
  opts: { persistSecrets?: boolean } = {},
): Env {
  const parsed = rawSchema.safeParse(withoutEmpty(source));
  if (!parsed.success) {
    throw new EnvError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  const raw = parsed.data;
  const dataDir = path.resolve(raw.DATA_DIR);

  let authSecret = raw.AUTH_SECRET;
  if (!authSecret) {
    if (raw.NODE_ENV === "production" && raw.DATABASE_URL) {
      throw new EnvError([
        "AUTH_SECRET: required when NODE_ENV=production and DATABASE_URL is set (every instance must share it); generate one with `openssl rand -base64 48`",
      ]);
    }
    authSecret = loadOrCreateSecret(dataDir, "auth-secret", opts.persistSecrets ?? true);
  }

  if (raw.STRIPE_SECRET_KEY) {
    const required = [
      "STRIPE_WEBHOOK_SECRET",
      "STRIPE_PRICE_BASE",
      "STRIPE_PRICE_PER_MINUTE",
      "STRIPE_METER_EVENT_NAME",
    ] as const;
    const missing = required.filter((name) => !raw[name]);
    if (missing.length)
      throw new EnvError(
        missing.map((name) => `${name}: required when STRIPE_SECRET_KEY is set (Stripe billing mode)`),
      );
  }

  const encryptionKey = raw.ENCRYPTION_KEY
    ? /^[0-9a-fA-F]{64}$/.test(raw.ENCRYPTION_KEY)
      ? Buffer.from(raw.ENCRYPTION_KEY, "hex")
      : Buffer.from(raw.ENCRYPTION_KEY, "base64")
    : Buffer.from(hkdfSync("sha256", authSecret, "routekit", "encryption-key", 32));
  // Its own key, so a hash never shares a key with a ciphertext; every instance derives the same one.
  const idempotencyHashKey = Buffer.from(hkdfSync("sha256", encryptionKey, "routekit", "idempotency-request-hash", 32));

  return Object.freeze({
    nodeEnv: raw.NODE_ENV,
    port: raw.PORT,
    host: raw.HOST,
    publicBaseUrl: (raw.PUBLIC_BASE_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ""),
    databaseUrl: raw.DATABASE_URL,
    dataDir,
    journalMinFreeBytes: raw.JOURNAL_MIN_FREE_MB * 1024 * 1024,
    authSecret,
    encryptionKey,
    idempotencyHashKey,
    monthlyBase: raw.MONTHLY_BASE,
    perMinuteRate: raw.PER_MINUTE_RATE,
    billingMode: raw.STRIPE_SECRET_KEY ? "stripe" : "local",
    stripe: {
      secretKey: raw.STRIPE_SECRET_KEY,
      webhookSecret: raw.STRIPE_WEBHOOK_SECRET,
      priceBase: raw.STRIPE_PRICE_BASE,
      pricePerMinute: raw.STRIPE_PRICE_PER_MINUTE,
      meterEventName: raw.STRIPE_METER_EVENT_NAME,
      apiBaseUrl: raw.STRIPE_API_BASE_URL,
    },
    twilioApiBaseUrl: raw.TWILIO_API_BASE_URL,
    callbackAllowPrivate: raw.CALLBACK_ALLOW_PRIVATE,
    callbackStartTimeoutMs: raw.CALLBACK_START_TIMEOUT_MS,
    voiceAnswerBudgetMs: raw.VOICE_ANSWER_BUDGET_MS,
    shutdownGraceMs: raw.SHUTDOWN_GRACE_MS,
    shutdownDrainMs: Math.min(raw.SHUTDOWN_DRAIN_MS, Math.floor(raw.SHUTDOWN_GRACE_MS / 2)),
    redisUrl: raw.REDIS_URL,
    trustProxy: raw.TRUST_PROXY,
    smtpUrl: raw.SMTP_URL,
    metricsToken: raw.METRICS_TOKEN,
    tracing: raw.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          endpoint: raw.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, ""),
          headers: otlpHeaders(raw.OTEL_EXPORTER_OTLP_HEADERS),
          serviceName: raw.OTEL_SERVICE_NAME,
          sampleRatio: raw.OTEL_TRACES_SAMPLER_ARG,
        }
      : null,
    logLevel: raw.LOG_LEVEL,
  });
}

/** OTEL_EXPORTER_OTLP_HEADERS as the OpenTelemetry specification writes it: `k1=v1,k2=v2`, values percent-encoded. */
function otlpHeaders(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of value?.split(",") ?? []) {
    const at = pair.indexOf("=");
    if (at > 0) headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

function loadOrCreateSecret(dataDir: string, name: string, persist: boolean): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(48).toString("base64url");
  if (persist) {
    mkdirSync(dataDir, { recursive: true });
    // `wx` fails if another process created it first; then read theirs.
    try {
      writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    } catch {
      return readFileSync(file, "utf8").trim();
    }
  }
  return secret;
}

/** The process's validated env, shared by the custom server and the Next.js bundles (runtime/remember.ts). */
export function env(): Env {
  return remember("env", () => parseEnv());
}

export function setEnv(value: Env): void {
  rememberValue("env", value);
}
