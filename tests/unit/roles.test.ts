import { describe, expect, it } from "vitest";
import { listProcedures } from "../../src/server/rest/routes";
import { appRouter } from "../../src/server/trpc/root";
import {
  NEEDS,
  ROLES,
  canManageOwners,
  roleAllows,
  roleAtMost,
  rolesAllowed,
  seesSecrets,
} from "../../src/shared/roles";

/** docs/decisions.md §18's table, as src/shared/roles.ts grants it. */
describe("roles", () => {
  it("grant what decisions §18 says, each role at most what the one above it may", () => {
    expect(rolesAllowed("read")).toEqual(["owner", "admin", "developer", "viewer"]);
    expect(rolesAllowed("self")).toEqual(["owner", "admin", "developer", "viewer"]);
    expect(rolesAllowed("write")).toEqual(["owner", "admin", "developer"]);
    for (const need of ["admin", "billing", "members"] as const) expect(rolesAllowed(need)).toEqual(["owner", "admin"]);
    expect(rolesAllowed("owner")).toEqual(["owner"]);
    for (const [i, role] of ROLES.entries())
      for (const below of ROLES.slice(i + 1))
        for (const need of NEEDS)
          if (roleAllows(below, need)) expect(roleAllows(role, need), `${role} ${need}`).toBe(true);
  });

  it("show secrets to all but a viewer; only an owner manages owners; nobody grants above their own role", () => {
    expect(ROLES.filter(seesSecrets)).toEqual(["owner", "admin", "developer"]);
    expect(ROLES.filter(canManageOwners)).toEqual(["owner"]);
    expect(roleAtMost("viewer", "developer")).toBe(true);
    expect(roleAtMost("admin", "developer")).toBe(false);
    expect(roleAtMost("owner", "owner")).toBe(true);
  });
});

describe("every procedure declares what it needs", () => {
  // tRPC keeps a procedure's meta on its definition; the permission check (init.ts `authorize`) reads it there.
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { meta?: any } }> } })._def
    .procedures;

  it("with a route's `needs` or `.meta({ needs })` (`none` where no credential is taken): none is open, or shut, by omission", () => {
    const names = listProcedures().map((p) => p.procedure);
    expect(names.length).toBeGreaterThan(60);
    for (const name of names) {
      const meta = procedures[name]?._def.meta;
      expect(NEEDS, name).toContain(meta?.rest?.needs ?? meta?.needs);
    }
  });
});
