import { sql, type Selectable } from "kysely";
import { decryptSecret, encryptSecret, generateWebhookSecret } from "../../crypto/secret-box";
import { kysely, now as sqlNow, type DB } from "../../db/kysely";
import { sqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import type { EndpointEventType } from "../../../shared/schemas/events";
import {
  MAX_ENDPOINTS_PER_ACCOUNT,
  type TCreateWebhookEndpointInput,
  type TUpdateWebhookEndpointInput,
} from "../../../shared/schemas/webhook-endpoints";
import { ROTATION_OVERLAP_MS } from "../../webhooks/webhook-secrets";

type EndpointRow = Selectable<DB["WebhookEndpoint"]>;

/** docs/decisions.md §22: the endpoint as every route shows it; the secret only where asked (create, GET /{id}). */
function endpointDto(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.eventTypes as (EndpointEventType | "*")[],
    description: row.description,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
  };
}

function notFound(): never {
  // Another account's endpoint is as absent as one that never existed: nothing tells them apart.
  throw new AppError("NOT_FOUND", "No such webhook endpoint.");
}

async function findOwned(accountId: string, id: string): Promise<EndpointRow> {
  const row = await kysely()
    .selectFrom("WebhookEndpoint")
    .selectAll()
    .where("id", "=", id)
    .where("accountId", "=", accountId)
    .executeTakeFirst();
  return row ?? notFound();
}

/**
 * POST /api/webhook-endpoints. At most MAX_ENDPOINTS_PER_ACCOUNT: the count and the insert run under a
 * transaction-scoped advisory lock of the account, so of concurrent creates at the limit exactly one wins
 * (a plain count-then-insert lets both through).
 */
export async function createWebhookEndpoint(opts: { accountId: string; input: TCreateWebhookEndpointInput }) {
  const secret = generateWebhookSecret();
  const row = await sqlTransaction(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`webhook-endpoints:${opts.accountId}`}, 0))`.execute(trx);
    const { count } = await trx
      .selectFrom("WebhookEndpoint")
      .select((eb) => eb.fn.countAll<string>().as("count"))
      .where("accountId", "=", opts.accountId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_ENDPOINTS_PER_ACCOUNT) throw new AppError("ENDPOINT_LIMIT_REACHED");
    return trx
      .insertInto("WebhookEndpoint")
      .values({
        accountId: opts.accountId,
        url: opts.input.url,
        eventTypes: opts.input.eventTypes,
        description: opts.input.description ?? "",
        secretEnc: encryptSecret(secret),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { webhookEndpoint: { ...endpointDto(row), secret } };
}

export async function listWebhookEndpoints(opts: { accountId: string }) {
  const rows = await kysely()
    .selectFrom("WebhookEndpoint")
    .selectAll()
    .where("accountId", "=", opts.accountId)
    .orderBy("createdAt")
    .orderBy("id")
    .execute();
  return { webhookEndpoints: rows.map((r) => endpointDto(r)) };
}

/** With its signing secret, unless the caller may not see secrets (a viewer: docs/decisions.md §18). */
export async function getWebhookEndpoint(opts: { accountId: string; id: string; showSecret: boolean }) {
  const row = await findOwned(opts.accountId, opts.id);
  if (!opts.showSecret) return { webhookEndpoint: endpointDto(row) };
  return { webhookEndpoint: { ...endpointDto(row), secret: decryptSecret(row.secretEnc) } };
}

export async function updateWebhookEndpoint(opts: { accountId: string; input: TUpdateWebhookEndpointInput }) {
  const { id, ...changes } = opts.input;
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  const row = await kysely()
    .updateTable("WebhookEndpoint")
    .set({ ...set, updatedAt: sqlNow() })
    .where("id", "=", id)
    .where("accountId", "=", opts.accountId)
    .returningAll()
    .executeTakeFirst();
  return { webhookEndpoint: endpointDto(row ?? notFound()) };
}

export async function deleteWebhookEndpoint(opts: { accountId: string; id: string }) {
  const row = await kysely()
    .deleteFrom("WebhookEndpoint")
    .where("id", "=", opts.id)
    .where("accountId", "=", opts.accountId)
    .returning("id")
    .executeTakeFirst();
  if (!row) notFound();
  return { deleted: true as const };
}

/**
 * POST /api/webhook-endpoints/{id}/secret: exactly as the account's secret (services/accounts/rotate-webhook-secret.ts,
 * docs/decisions.md §8). Rotations of one endpoint are serialized on its row, so of two at once the second keeps
 * the first's new secret as its previous one.
 */
export async function rotateWebhookEndpointSecret(opts: {
  accountId: string;
  id: string;
  expirePrevious?: boolean;
  now?: Date;
}) {
  return sqlTransaction(async (trx) => {
    const now = opts.now ?? new Date();
    const current = await trx
      .selectFrom("WebhookEndpoint")
      .select("secretEnc")
      .where("id", "=", opts.id)
      .where("accountId", "=", opts.accountId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) notFound();
    if (opts.expirePrevious) {
      await trx
        .updateTable("WebhookEndpoint")
        .set({ previousSecretEnc: null, previousSecretExpiresAt: null, updatedAt: sqlNow() })
        .where("id", "=", opts.id)
        .execute();
      return { secret: decryptSecret(current.secretEnc), previousSecretExpiresAt: null };
    }
    const secret = generateWebhookSecret();
    const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    await trx
      .updateTable("WebhookEndpoint")
      .set({
        secretEnc: encryptSecret(secret),
        previousSecretEnc: current.secretEnc,
        previousSecretExpiresAt: expiresAt,
        updatedAt: sqlNow(),
      })
      .where("id", "=", opts.id)
      .execute();
    return { secret, previousSecretExpiresAt: expiresAt.toISOString() };
  });
}
