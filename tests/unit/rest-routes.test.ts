import { describe, expect, it } from "vitest";
import { matchRoute } from "../../src/server/rest/match-route";
import { listProcedures, restRoutes } from "../../src/server/rest/routes";
import { createCaller } from "../../src/server/trpc/root";
import { restProcedure } from "../../src/server/trpc/rest-procedure";
import { apiProcedure, paidProcedure, publicProcedure } from "../../src/server/trpc/init";
import { z } from "zod";

describe("REST route table", () => {
  it("is read from the procedures: every procedure is a REST route, reachable by the caller at its dotted path", () => {
    const all = listProcedures();
    // A procedure meant only for the dashboard would be listed here by name, on purpose.
    // Account settings and the mailed links are the dashboard's (and the no-JavaScript forms'):
    // people change passwords and confirm addresses, integrations do not.
    const dashboardOnly: string[] = [
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

  it("keeps the public routes to the four that need no credential", () => {
    expect(
      restRoutes
        .filter((r) => !r.auth)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    ).toEqual(["GET /api/health", "GET /api/ready", "POST /api/auth/login", "POST /api/auth/register"].sort());
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

describe("route contracts declare what they need", () => {
  const output = z.object({ ok: z.boolean() });
  const examples = { response: { ok: true } };
  it("a declared standing must be the one its builder enforces", () => {
    expect(() =>
      restProcedure(paidProcedure, { method: "POST", path: "/api/x", needs: "write", summary: "x", output, examples }),
    ).toThrow(/declares standing "any" but its builder enforces "paid"/);
    expect(() =>
      restProcedure(apiProcedure, {
        method: "POST",
        path: "/api/x",
        needs: "write",
        standing: "paid",
        summary: "x",
        output,
        examples,
      }),
    ).toThrow(/declares standing "paid" but its builder enforces "any"/);
    expect(() =>
      restProcedure(paidProcedure, {
        method: "POST",
        path: "/api/x",
        needs: "write",
        standing: "paid",
        summary: "x",
        output,
        examples,
      }),
    ).not.toThrow();
  });

  it("credentials go with a permission, and no credentials with none", () => {
    expect(() =>
      restProcedure(apiProcedure, { method: "GET", path: "/api/x", needs: "none", summary: "x", output, examples }),
    ).toThrow(/needs read, write, billing or members/);
    expect(() =>
      restProcedure(publicProcedure, {
        method: "GET",
        path: "/api/x",
        auth: false,
        needs: "read",
        summary: "x",
        output,
        examples,
      }),
    ).toThrow(/needs read, write, billing or members; one without, none/);
    for (const route of restRoutes) expect(route.needs === "none", `${route.method} ${route.path}`).toBe(!route.auth);
  });
});
