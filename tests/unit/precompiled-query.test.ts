import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { DB } from "../../src/generated/kysely/db";
import { precompiled } from "../../src/server/db/kysely";

// Compiling needs no database: Kysely's own dummy driver never runs a query.
const db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe("precompiled", () => {
  it("builds once and runs with each call's values in their places, constants kept", () => {
    let builds = 0;
    const query = precompiled((sid: string, rank: number, errorUrl: string | null) => {
      builds++;
      return db
        .selectFrom("Call")
        .select("id")
        .where("callSid", "=", sid)
        .where("statusRank", "<", rank)
        .where("direction", "=", "inbound")
        .where((eb) => eb.or([eb("onErrorUrl", "=", errorUrl), eb("createdAt", ">", sql<Date>`now()`)]))
        .limit(5);
    });
    const first = query("CA1", 3, null);
    const second = query("CA2", 7, "https://example.com/e");
    expect(builds).toBe(1);
    expect(second.sql).toBe(first.sql);
    expect(first.parameters).toEqual(["CA1", 3, "inbound", null, 5]);
    expect(second.parameters).toEqual(["CA2", 7, "inbound", "https://example.com/e", 5]);
  });
});
