/**
 * Rows for tests and benchmarks, written through the database's own types: the Kysely `DB` that
 * `npm run db:generate` derives from prisma/schema.prisma. A renamed, dropped or retyped column, or a new
 * required one, breaks the compile where a test seeds it, not the test at run time (or, worse, quietly makes it
 * test nothing, as a hand-written SQL string did). `tests/unit/no-raw-sql-in-tests.test.ts` keeps it that way.
 *
 * Each table's seed fills in the columns tests rarely care about; a test names the ones it is about. `update`
 * changes rows by table, match and new values, all typed by the table. Anything else (an upsert, a bulk insert
 * from a query) is Kysely's own builder, `build`, run with `run`.
 *
 * Kysely only compiles here: the statements run on what the caller holds, a `pg` pool (`seed(server)` in
 * support/api.ts) or one client inside a benchmark's transaction. Nothing sets `updatedAt` by itself: a seed
 * writes exactly the columns it names, as the SQL it replaces did.
 */
import { randomBytes } from "node:crypto";
import {
  type Compilable,
  DummyDriver,
  type Expression,
  type Insertable,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  type Selectable,
  sql,
  type Updateable,
} from "kysely";
import type { DB } from "../../src/generated/kysely/db";

/** Runs one statement: a `pg` Pool, Client or PoolClient. */
type Queryable = { query(text: string, values: unknown[]): Promise<{ rows: any[] }> };

/** Kysely as a statement builder only (it never connects): `run` sends what it builds. */
export const build = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Runs a statement made with `build` on `db`; the rows it returns, as `pg` parses them. */
export async function run<O>(db: Queryable, statement: Compilable<O>): Promise<O[]> {
  const compiled = statement.compile();
  return (await db.query(compiled.sql, [...compiled.parameters])).rows as O[];
}

type Table = keyof DB & string;
type Row<T extends Table> = Selectable<DB[T]>;
type Column<T extends Table, K> = K extends keyof Row<T> ? Row<T>[K] : never;

/** A row to insert: each column's value, or an expression of its type (`fromNow("1 hour")`). */
type New<T extends Table> = {
  [K in keyof Insertable<DB[T]>]: Insertable<DB[T]>[K] | Expression<Column<T, K>>;
};

/** The columns a table's insert needs, with those the seed fills in (`D`) made optional. */
type Seedable<T extends Table, D extends keyof New<T>> = Omit<New<T>, D> & Partial<Pick<New<T>, D>>;

/** Rows whose columns equal these: an array matches any of its values, null is IS NULL. */
type Match<T extends Table> = { [K in keyof Row<T>]?: Row<T>[K] | readonly NonNullable<Row<T>[K]>[] };

/**
 * New values: a value, an expression (`ago("1 minute")`), or a function of the column's current value
 * (`earlier("1 hour")`, `plus(1)`).
 */
type Changes<T extends Table> = {
  [K in keyof Updateable<DB[T]>]?:
    | Updateable<DB[T]>[K]
    | Expression<Column<T, K>>
    | ((current: RawBuilder<Column<T, K>>) => Expression<Column<T, K>>);
};

/** The database's clock (a statement sees one `now()`), as the server's own writes use it. */
export const now = (): RawBuilder<Date> => sql<Date>`now()`;

/** The database's clock, moved back by a PostgreSQL interval ("2 minutes"): times as the server sees them. */
export const ago = (interval: string): RawBuilder<Date> => sql<Date>`now() - ${interval}::interval`;

/** The database's clock, moved on by a PostgreSQL interval ("1 hour"). */
export const fromNow = (interval: string): RawBuilder<Date> => sql<Date>`now() + ${interval}::interval`;

/** The column's own time moved back by a PostgreSQL interval: `{ createdAt: earlier("1 hour") }`. */
export const earlier =
  (interval: string) =>
  (current: Expression<Date>): RawBuilder<Date> =>
    sql<Date>`${current} - ${interval}::interval`;

/** The column's own count plus `n`: `{ liveCalls: plus(1) }`. */
export const plus =
  (n: number) =>
  (current: Expression<number>): RawBuilder<number> =>
    sql<number>`${current} + ${n}::int`;

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** A Twilio-shaped call SID no other test uses. */
const uniqueCallSid = (): string => `CA${hex(16)}`;

/** Seeds and typed changes on one database. */
export function seeds(db: Queryable) {
  // Generic over the table, Kysely cannot follow `T` into its builder: the callers typed the rows and changes.
  const untyped = build as unknown as Kysely<any>;

  async function insert<T extends Table>(table: T, rows: readonly New<T>[]): Promise<Row<T>[]> {
    if (rows.length === 0) return [];
    const statement = untyped
      .insertInto(table as string)
      .values(rows as any[])
      .returningAll();
    return (await run(db, statement)) as Row<T>[];
  }
  const one = async <T extends Table>(table: T, row: New<T>): Promise<Row<T>> => (await insert(table, [row]))[0]!;

  const callDefaults = () => ({
    callSid: uniqueCallSid(),
    direction: "inbound",
    fromNumber: "+14155550100",
    toNumber: "+14155550123",
    status: "completed",
    statusRank: 10,
    onCallStartUrl: "https://api.example.com/calls/start",
    onCallEndUrl: "https://api.example.com/calls/end",
  });
  type NewCall = Seedable<"Call", keyof ReturnType<typeof callDefaults>>;

  const usageDefaults = () => ({
    callSid: uniqueCallSid(),
    direction: "inbound",
    callerNumber: "+14155550100",
    calledNumber: "+14155550123",
    durationSeconds: 60,
    billedMinutes: 1,
    totalCost: "0.02",
    costBreakdown: {
      durationSeconds: 60,
      billedMinutes: 1,
      perMinuteRate: 0.02,
      usageCost: 0.02,
      totalCost: 0.02,
      currency: "usd",
    },
  });

  return {
    /** A call as the engine records it; by default a completed inbound call from +14155550100 to +14155550123. */
    call: (row: NewCall) => one("Call", { ...callDefaults(), ...row }),
    /** Many calls in one statement. */
    calls: (rows: readonly NewCall[]) =>
      insert(
        "Call",
        rows.map((row) => ({ ...callDefaults(), ...row })),
      ),
    /** A number as registration leaves it (unverified, not configured at Twilio), unless the row says otherwise. */
    phoneNumber: (row: Seedable<"PhoneNumber", "onCallStartUrl" | "onCallEndUrl">) =>
      one("PhoneNumber", {
        onCallStartUrl: "https://api.example.com/calls/start",
        onCallEndUrl: "https://api.example.com/calls/end",
        ...row,
      }),
    /** A Twilio connection; the row names the sealed token (serverEncryptionKey in support/connect-twilio.ts seals one). */
    twilioConnection: (row: Seedable<"TwilioConnection", "accountSid">) =>
      one("TwilioConnection", { accountSid: `AC${hex(16)}`, ...row }),
    /** A usage record of one call: by default 60 s, one billed minute at $0.02, with its cost breakdown. */
    usageRecord: (row: Seedable<"UsageRecord", keyof ReturnType<typeof usageDefaults>>) =>
      one("UsageRecord", { ...usageDefaults(), ...row }),
    /** A running total (period `YYYY-MM`, `all`, or a number's day `n:<id>:<YYYY-MM-DD>`). */
    usageTotal: (row: New<"UsageTotal">) => one("UsageTotal", row),
    /** An account's limits row (no budget, no cap, unless the row sets them). */
    accountLimit: (row: New<"AccountLimit">) => one("AccountLimit", row),
    /** An API key row (the key itself is not recoverable from it: tests use it for what the database does). */
    apiKey: (row: Seedable<"ApiKey", "keyPrefix" | "keyHash">) =>
      one("ApiKey", { keyPrefix: `rtk_${hex(4)}`, keyHash: hex(32), ...row }),
    /** A user's membership of an account at a role (the invitation flow is the members suite's subject). */
    membership: (row: New<"Membership">) => one("Membership", row),
    /** A recorded delivery of a call.ended event, pending, with no attempt made; the row names where it goes. */
    webhookDelivery: (row: Seedable<"WebhookDelivery", "eventId" | "eventType" | "payload">) =>
      one("WebhookDelivery", { eventId: `evt_${hex(12)}`, eventType: "call.ended", payload: "{}", ...row }),
    /** Many deliveries in one statement. */
    webhookDeliveries: (rows: readonly Seedable<"WebhookDelivery", "eventId" | "eventType" | "payload">[]) =>
      insert(
        "WebhookDelivery",
        rows.map((row) => ({ eventId: `evt_${hex(12)}`, eventType: "call.ended", payload: "{}", ...row })),
      ),

    /**
     * Sets `changes` on the rows of `table` that `match` (never on all of them: an empty match is refused), and
     * gives back the rows as they are now.
     */
    async update<T extends Table>(table: T, match: Match<T>, changes: Changes<T>): Promise<Row<T>[]> {
      const where = Object.entries(match as Record<string, unknown>);
      if (where.length === 0) throw new Error(`update("${table}") without a match would change every row`);
      const unset = where.find(([, value]) => value === undefined);
      if (unset) throw new Error(`update("${table}") matched on ${unset[0]} = undefined`);
      const set = Object.fromEntries(
        Object.entries(changes as Record<string, unknown>).map(([column, value]) => [
          column,
          typeof value === "function" ? (value as (current: unknown) => unknown)(sql.ref(column)) : value,
        ]),
      );
      let statement = untyped.updateTable(table as string).set(set);
      for (const [column, value] of where)
        statement = Array.isArray(value)
          ? statement.where(column, "in", value)
          : value === null
            ? statement.where(column, "is", null)
            : statement.where(column, "=", value);
      return (await run(db, statement.returningAll())) as Row<T>[];
    },

    /** A statement made with `build`, on this database. */
    run: <O>(statement: Compilable<O>) => run(db, statement),
  };
}

export type Seeds = ReturnType<typeof seeds>;
