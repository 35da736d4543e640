/**
 * Plain SQL, typed from prisma/schema.prisma (prisma-kysely writes `DB` on
 * `npm run db:generate`), on the process's one `pg` pool, beside Prisma.
 *
 * Which to use where: Prisma for simple CRUD (find, create, update, delete of
 * one model, with its relations); Kysely for the hot paths (the engine, event
 * delivery), reads that join several tables into one statement, `ON CONFLICT`
 * upserts, `RETURNING`, data-modifying CTEs, `FOR UPDATE` locks and anything
 * else Prisma cannot say. No SQL in strings, no hand-written row types, id
 * generators or time shims: ids, `createdAt` and `updatedAt` have database
 * defaults, and every timestamp is `timestamptz`. One exception, for speed: the
 * voice request's inserts (the call, its call.started delivery and attempts)
 * name their ids with `newDatabaseId()` (db/database-id.ts), the same format.
 */
import { CompiledQuery, Kysely, PostgresDialect, sql, type Compilable, type RawBuilder } from "kysely";
import type { DB } from "@/generated/kysely/db";
import { peek, rememberValue } from "../runtime/remember";
import { pool } from "./client";
import { namedQuery, preparedStatementPool } from "./prepared-statements";

export type { DB };

type Held = { pool: ReturnType<typeof pool>; db: Kysely<DB> };

/** The query builder on the shared pool (a new pool after `disconnectDb` gets a new builder); one per process (runtime/remember.ts). */
export function kysely(): Kysely<DB> {
  const current = pool();
  const held = peek<Held>("db.kysely");
  if (held?.pool === current) return held.db;
  return rememberValue<Held>("db.kysely", {
    pool: current,
    db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparedStatementPool(current) }) }),
  }).db;
}

/** The database's clock, for timestamps written in SQL (a transaction sees one `now()`). */
export const now = (): RawBuilder<Date> => sql<Date>`now()`;

/**
 * A query built and compiled once, then run with new values: building Kysely's
 * query tree costs about 0.1 ms for the engine's widest read, paid on every
 * voice request otherwise. `build` gets stand-ins for its arguments and may use
 * them only as values (never to choose the query's shape: make one per shape).
 */
export function precompiled<A extends unknown[], O>(
  build: (...args: A) => Compilable<O>,
): (...args: A) => CompiledQuery<O> {
  let compiled: { sql: string; slots: ({ arg: number } | { value: unknown })[] } | undefined;
  return (...args) => {
    if (!compiled) {
      const standIns = args.map((_, i) => `\u0000arg${i}\u0000`);
      const query = build(...(standIns as A)).compile();
      const slots = query.parameters.map((p) =>
        typeof p === "string" && standIns.includes(p) ? { arg: standIns.indexOf(p) } : { value: p },
      );
      compiled = { sql: query.sql, slots };
    }
    return CompiledQuery.raw(
      compiled.sql,
      compiled.slots.map((s) => ("arg" in s ? args[s.arg] : s.value)),
    ) as CompiledQuery<O>;
  };
}

/**
 * `precompiled` with named parameters: `keys` lists every parameter once (its type makes a missing one an
 * error), and the statement is built and run with one object rather than a dozen positional strings.
 */
export function precompiledNamed<P extends Record<string, unknown>, O>(
  keys: { [K in keyof P]-?: true },
  build: (params: P) => Compilable<O>,
): (params: P) => CompiledQuery<O> {
  const names = Object.keys(keys) as (keyof P)[];
  const positional = precompiled((...args: unknown[]) =>
    build(Object.fromEntries(names.map((name, i) => [name, args[i]])) as P),
  );
  return (params) => positional(...names.map((name) => params[name]));
}

/**
 * Runs a compiled statement (a `precompiled` one, say) outside any
 * transaction, straight on the process's pool and prepared once per
 * connection: Kysely's executor adds a dozen async steps per statement
 * (connection provider, driver, result plugins; none are configured), which
 * the hot paths (the API-key look-up, the rate limit, the engine) would pay on
 * every request. Inside a transaction, use the transaction's `executeQuery`.
 */
export async function executeCompiled<O>(query: CompiledQuery<O>): Promise<O[]> {
  const { rows } = await pool().query(namedQuery(query.sql, query.parameters));
  return rows as O[];
}
