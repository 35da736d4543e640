import { createHmac } from "node:crypto";
import { kysely } from "../../db/kysely";
import { env } from "../../env";
import { decryptSecret, encryptSecret } from "../../crypto/secret-box";
import { AppError } from "../../errors/app-error";
import { IDEMPOTENCY_KEY_MAX_CHARS } from "../../../shared/schemas/bounds";

/** docs/decisions.md §11: a key answers the same for 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * An IN_PROGRESS row this old belongs to an instance that died mid-request (no
 * request runs this long: provider calls time out in seconds), so a retry may take it over.
 */
export const IN_PROGRESS_ABANDONED_MS = 5 * 60 * 1000;
/** Expired rows removed per new key: pruning on access, bounded so no request pays for a backlog. */
const PRUNE_BATCH = 50;

/** 1–255 printable ASCII characters (space to tilde), as Stripe accepts. */
export function validIdempotencyKey(key: string): boolean {
  return key.length >= 1 && key.length <= IDEMPOTENCY_KEY_MAX_CHARS && /^[\x20-\x7e]+$/.test(key);
}

type Emit = { text: string } | { value: unknown };

/**
 * Key order does not matter: `{a,b}` and `{b,a}` are the same request. Written
 * with its own stack, not by recursion: a body may nest thousands of levels
 * deep (JSON.parse takes it), and hashing it must not overflow the call stack
 * before the schema gets to refuse it.
 */
export function canonicalJson(root: unknown): string {
  const out: string[] = [];
  const stack: Emit[] = [{ value: root }];
  while (stack.length) {
    const item = stack.pop()!;
    if ("text" in item) {
      out.push(item.text);
      continue;
    }
    const value = item.value;
    const parts: Emit[] = [];
    if (Array.isArray(value)) {
      parts.push({ text: "[" });
      value.forEach((v: unknown, i) => parts.push(...(i ? [{ text: "," }] : []), { value: v }));
      parts.push({ text: "]" });
    } else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      parts.push({ text: "{" });
      entries.forEach(([k, v], i) => parts.push({ text: `${i ? "," : ""}${JSON.stringify(k)}:` }, { value: v }));
      parts.push({ text: "}" });
    } else {
      out.push(JSON.stringify(value) ?? "null");
      continue;
    }
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]!);
  }
  return out.join("");
}

/**
 * What identifies a request under its key: an HMAC with a server secret
 * (docs/decisions.md §20), never a plain digest. The body may hold a password (register,
 * login, change password); a plain SHA-256 of it is reversed by a dictionary
 * from a database read, a keyed one is not without the server's key.
 */
export function requestHash(operation: string, input: unknown, key: Buffer = env().idempotencyHashKey): string {
  return createHmac("sha256", key).update(operation).update("\n").update(canonicalJson(input)).digest("hex");
}

export type StoredAnswer = { status: number; body: unknown };
export type BeginResult = { kind: "started" } | { kind: "replay"; answer: StoredAnswer };
/**
 * Claims the key for this request, or says what to do instead: replay the
 * stored answer, or refuse (422 another body, 409 still running). The claim is
 * one INSERT … ON CONFLICT DO NOTHING, so of any number of concurrent requests
 * on any instances exactly one runs.
 */
export async function beginIdempotent(opts: {
  scope: string;
  key: string;
  requestHash: string;
  now?: Date;
}): Promise<BeginResult> {
  const now = opts.now ?? new Date();
  const db = kysely();
  // An expired key, or a claim its instance abandoned, is gone before the claim below.
  await db
    .deleteFrom("IdempotencyKey")
    .where("scope", "=", opts.scope)
    .where("key", "=", opts.key)
    .where((eb) =>
      eb.or([
        eb("expiresAt", "<=", now),
        eb.and([
          eb("state", "=", "IN_PROGRESS"),
          eb("createdAt", "<=", new Date(now.getTime() - IN_PROGRESS_ABANDONED_MS)),
        ]),
      ]),
    )
    .execute();
  const claimed = await db
    .insertInto("IdempotencyKey")
    .values({
      scope: opts.scope,
      key: opts.key,
      requestHash: opts.requestHash,
      state: "IN_PROGRESS",
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    })
    .onConflict((oc) => oc.columns(["scope", "key"]).doNothing())
    .returning("key")
    .executeTakeFirst();
  if (claimed) {
    // Pruning on access, bounded so no request pays for a backlog.
    await db
      .deleteFrom("IdempotencyKey")
      .where((eb) =>
        eb(
          eb.refTuple("scope", "key"),
          "in",
          eb
            .selectFrom("IdempotencyKey")
            .select(["scope", "key"])
            .where("expiresAt", "<=", now)
            .limit(PRUNE_BATCH)
            .$asTuple("scope", "key"),
        ),
      )
      .execute();
    return { kind: "started" };
  }
  const row = await db
    .selectFrom("IdempotencyKey")
    .select(["requestHash", "state", "responseStatus", "responseBody"])
    .where("scope", "=", opts.scope)
    .where("key", "=", opts.key)
    .executeTakeFirst();
  // Released between our insert and read: the first request failed with a 5xx; this one may run.
  if (!row) return beginIdempotent(opts);
  if (row.requestHash !== opts.requestHash) throw new AppError("IDEMPOTENCY_KEY_REUSED");
  if (row.state !== "DONE" || row.responseStatus === null) throw new AppError("IDEMPOTENCY_IN_PROGRESS");
  return {
    kind: "replay",
    answer: {
      status: row.responseStatus,
      body: row.responseBody === null ? null : JSON.parse(decryptSecret(row.responseBody)),
    },
  };
}

/** Stores the answer a retry with this key will get. */
export async function completeIdempotent(opts: { scope: string; key: string; answer: StoredAnswer }): Promise<void> {
  await kysely()
    .updateTable("IdempotencyKey")
    // Sealed: answers can hold secrets shown once (a new API key, a webhook secret, a login token).
    .set({
      state: "DONE",
      responseStatus: opts.answer.status,
      responseBody: encryptSecret(JSON.stringify(opts.answer.body ?? null)),
    })
    .where("scope", "=", opts.scope)
    .where("key", "=", opts.key)
    .where("state", "=", "IN_PROGRESS")
    .execute();
}

/** A 5xx or an unexpected failure: forget the claim so a retry runs the request again. */
export async function releaseIdempotent(opts: { scope: string; key: string }): Promise<void> {
  await kysely()
    .deleteFrom("IdempotencyKey")
    .where("scope", "=", opts.scope)
    .where("key", "=", opts.key)
    .where("state", "=", "IN_PROGRESS")
    .execute();
}

/** Every expired key, for a maintenance run or a test; requests prune a few on the way. */
export async function pruneExpiredIdempotencyKeys(now: Date = new Date()): Promise<number> {
  const result = await kysely().deleteFrom("IdempotencyKey").where("expiresAt", "<=", now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
