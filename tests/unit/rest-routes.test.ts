import { describe, expect, it } from "vitest";
import { matchRoute } from "../../src/server/rest/match-route";
import { listProcedures, restRoutes } from "../../src/server/rest/routes";
import { createCaller } from "../../src/server/trpc/root";
import type { Need } from "../../src/shared/roles";
import { restContractOf, restProcedure } from "../../src/server/trpc/rest-procedure";
import { impliedErrors } from "../../src/server/trpc/builder-traits";
import {
  apiProcedure,
  credentialProcedure,
  paidProcedure,
  publicProcedure,
  unsuspendedProcedure,
} from "../../src/server/trpc/init";
import { buildOpenApiDocument } from "../../src/server/openapi/build-openapi";
import { z } from "zod";

describe("REST route table", () => {
  it("is read from the procedures: every procedure is a REST route, reachable by the caller at its dotted path", () => {
    const all = listProcedures();
    // A procedure meant only for the dashboard would be listed here by name, on purpose.
    // Account settings and the mailed links are the dashboard's (and the no-JavaScript forms'):
    // people change passwords and confirm addresses, integrations do not.
    const dashboardOnly: string[] = [
      // Who is signed in and the account switcher (docs/decisions.md §18): a person's, not an integration's.
      "auth.me",
      "auth.switchAccount",
      // The Security page's view of the person's two-factor and the account's requirement.
      "twoFactor.status",
      // What the mailed invitation link's page shows before anyone signs in (opening it changes nothing).
      "members.invitationPreview",
      // The nav's alert badge (a count of the last 24 hours); integrations read GET /api/alerts.
      "alerts.recentCount",
      "settings.get",
      "settings.resendVerification",
      "settings.verifyEmail",
      "settings.requestPasswordReset",
      "settings.resetPassword",
      "settings.changePassword",
      "settings.requestEmailChange",
      "settings.confirmEmailChange",
      "settings.delete",
    ];
    expect(all.filter((p) => !p.contract).map((p) => p.procedure)).toEqual(dashboardOnly);
    const caller = createCaller({ requestId: "t", ip: "127.0.0.1", authorization: null });
    for (const route of restRoutes) {
      let node: unknown = caller;
      for (const part of route.procedure.split(".")) node = (node as Record<string, unknown>)[part];
      expect(typeof node, `${route.method} ${route.path} → ${route.procedure}`).toBe("function");
    }
  });

  it("has no duplicate method and path, and every path is under /api", () => {
    const keys = restRoutes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const route of restRoutes) expect(route.path).toMatch(/^\/api\/[a-z0-9/:_-]+$/i);
  });

  it("keeps the public routes to the six that need no credential", () => {
    expect(
      restRoutes
        .filter((r) => !r.auth)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(
      [
        "GET /api/health",
        "GET /api/ready",
        "POST /api/auth/login",
        "POST /api/auth/register",
        // The mailed link's token is the credential (docs/decisions.md §22).
        "POST /api/invitations/accept/sign-in",
        "POST /api/invitations/accept/sign-up",
      ].sort(),
    );
  });

  it("matches path parameters, decodes them, and tells 404 from 405", () => {
    const found = matchRoute(restRoutes, "DELETE", "/api/api-keys/abc%20d");
    expect(found).toMatchObject({ kind: "found", params: { id: "abc d" } });
    expect(matchRoute(restRoutes, "GET", "/api/account/")).toMatchObject({ kind: "found" });
    expect(matchRoute(restRoutes, "PUT", "/api/api-keys")).toEqual({
      kind: "method-not-allowed",
      allow: ["POST", "GET"],
    });
    expect(matchRoute(restRoutes, "GET", "/api/api-keys/x/y")).toEqual({ kind: "not-found" });
    expect(matchRoute(restRoutes, "DELETE", "/api/api-keys/%E0%A4%A")).toEqual({ kind: "not-found" });
    expect(matchRoute(restRoutes, "HEAD", "/api/health")).toMatchObject({ kind: "found" });
  });

  it("prefers a literal segment to a parameter, whatever the order", () => {
    const test = matchRoute([...restRoutes].reverse(), "POST", "/api/webhook-deliveries/test");
    expect(test).toMatchObject({ kind: "found", route: { procedure: "webhookDeliveries.sendTest" }, params: {} });
    expect(matchRoute(restRoutes, "GET", "/api/webhook-deliveries/abc")).toMatchObject({
      kind: "found",
      route: { procedure: "webhookDeliveries.get" },
    });
  });
});

describe("route contracts derive what their builder knows", () => {
  const output = z.object({ ok: z.boolean() });
  const examples = { response: { ok: true } };
  const spec = { method: "POST", path: "/api/x", needs: "write", summary: "x", output, examples } as const;
  // Typed loosely: these checks are the ones that run when a route is built, whatever its builder's types.
  const build = restProcedure as unknown as (builder: object, spec: object) => { mutation(fn: () => unknown): unknown };
  const contractOn = (builder: object, extra: { needs?: Need; errors?: number[]; readsOwnAccount?: boolean } = {}) =>
    restContractOf(build(builder, { ...spec, ...extra }).mutation(() => ({ ok: true })));

  it("reads the standing and the credentials from the builder, not from the route", () => {
    expect(contractOn(apiProcedure)).toMatchObject({ access: "bearer", auth: true, standing: "any" });
    expect(contractOn(unsuspendedProcedure)).toMatchObject({ access: "bearer", auth: true, standing: "unsuspended" });
    expect(contractOn(paidProcedure)).toMatchObject({ access: "bearer", auth: true, standing: "paid" });
    expect(contractOn(credentialProcedure, { needs: "none" })).toMatchObject({ access: "sign-in", auth: false });
    expect(contractOn(publicProcedure, { needs: "none" })).toMatchObject({ access: "public", auth: false });
    // A builder made outside init.ts has no declared traits: what it enforces cannot be read, so it is refused.
    expect(() => contractOn(apiProcedure.use(({ next }) => next()))).toThrow(/builder from trpc\/init.ts/);
  });

  it("refuses an error status the builder implies, and a 402 or 403 the builder does not", () => {
    expect(() => contractOn(paidProcedure, { errors: [402] })).toThrow(/lists 402, which its builder implies/);
    expect(() => contractOn(paidProcedure, { errors: [403] })).toThrow(/lists 403, which its builder implies/);
    expect(() => contractOn(unsuspendedProcedure, { errors: [403] })).toThrow(/lists 403, which its builder implies/);
    expect(() => contractOn(apiProcedure, { errors: [401] })).toThrow(/lists 401, which its builder implies/);
    expect(() => contractOn(apiProcedure, { errors: [402] })).toThrow(/402, which only a paid builder answers/);
    expect(() => contractOn(unsuspendedProcedure, { errors: [402] })).toThrow(/only a paid builder answers/);
    expect(() => contractOn(paidProcedure, { errors: [409, 502] })).not.toThrow();
  });

  it("documents 402 exactly on paid routes and 403 on every route with credentials (the permission check)", () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { responses: object }>> };
    for (const route of restRoutes) {
      const name = `${route.method} ${route.path} (${route.procedure})`;
      const documented = Object.keys(
        doc.paths[route.path.replace(/:(\w+)/g, "{$1}")]![route.method.toLowerCase()]!.responses,
      ).map(Number);
      expect(documented.includes(402), name).toBe(route.standing === "paid");
      // The permission check (a role, a read-only key, two-factor not yet on) may refuse any route with credentials.
      expect(documented.includes(403), name).toBe(route.auth || (route.errors ?? []).includes(403));
      expect(documented.includes(401), name).toBe(route.auth || (route.errors ?? []).includes(401));
      // No route restates what its builder implies.
      for (const status of impliedErrors(route)) expect(route.errors ?? [], name).not.toContain(status);
    }
  });

  it("says which routes read the calling account with their authentication", () => {
    expect(restRoutes.filter((r) => r.readsOwnAccount).map((r) => r.procedure)).toEqual(["account.get"]);
    expect(() => contractOn(publicProcedure, { needs: "none", readsOwnAccount: true })).toThrow(
      /only a route with credentials reads its own account/,
    );
  });

  it("the permission check's refusal is documented on every route with credentials (decisions §18)", () => {
    for (const route of restRoutes)
      expect(impliedErrors(route).includes(403), `${route.method} ${route.path}`).toBe(route.auth);
  });

  it("credentials go with a permission, and no credentials with none", () => {
    expect(() => contractOn(apiProcedure, { needs: "none" })).toThrow(/needs self, read, write, admin/);
    expect(() => contractOn(publicProcedure, { needs: "read" })).toThrow(
      /billing, members or owner; one without, none/,
    );
    for (const route of restRoutes) expect(route.needs === "none", `${route.method} ${route.path}`).toBe(!route.auth);
  });
});
