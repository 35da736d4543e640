import { createHash } from "node:crypto";
import type pg from "pg";
import type { PostgresPool, PostgresPoolClient } from "kysely";
import { env } from "../env";

/**
 * Kysely's `pg` dialect sends every statement unnamed, so PostgreSQL plans it
 * anew each time. On a PostgreSQL server this names each parameterised
 * statement by a hash of its text, so it is parsed once per connection (the
 * hot paths run the same few statements thousands of times). The embedded
 * database multiplexes connections onto one backend, where names would
 * collide, so there statements stay unnamed.
 */
const MAX_NAMED_PER_CONNECTION = 500;

const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `k_${createHash("sha1").update(text).digest("base64url").slice(0, 24)}`;
    if (names.size < 5_000) names.set(text, name);
  }
  return name;
}

/**
 * A statement run outside Kysely's executor (db/kysely.ts `executeCompiled`): named by its text on
 * a PostgreSQL server, where node-postgres parses it once per connection; unnamed on the embedded database.
 */
export function namedQuery(text: string, values: readonly unknown[]): pg.QueryConfig {
  return env().databaseUrl && values.length
    ? { name: statementName(text), text, values: [...values] }
    : { text, values: [...values] };
}

export function preparedStatementPool(pool: pg.Pool): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const prepared = new WeakMap<pg.PoolClient, Set<string>>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let broken: Error | undefined;
    return {
      async query(text: string, values: readonly unknown[]) {
        let config = namedQuery(text, values);
        const { name } = config;
        if (name) {
          const seen = prepared.get(client) ?? new Set<string>();
          prepared.set(client, seen);
          // A bound on what one connection keeps prepared, should some statement's text vary without end.
          if (seen.has(name) || seen.size < MAX_NAMED_PER_CONNECTION) seen.add(name);
          else config = { text, values: config.values };
        }
        try {
          return await client.query(config);
        } catch (err) {
          // A connection whose rollback failed is in an unknown state: it is closed, not reused.
          if (text === "rollback") broken = err instanceof Error ? err : new Error("rollback failed");
          throw err;
        }
      },
      release() {
        const err = broken;
        broken = undefined;
        if (err) wrappers.delete(client);
        client.release(err);
      },
    } as unknown as PostgresPoolClient;
  };
  return {
    async connect() {
      const client = await pool.connect();
      let w = wrappers.get(client);
      if (!w) wrappers.set(client, (w = wrap(client)));
      return w;
    },
    end: () => pool.end(),
  };
}
