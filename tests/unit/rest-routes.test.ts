import { describe, expect, it } from "vitest";
import { matchRoute } from "../../src/server/rest/match-route";
import { restRoutes } from "../../src/server/rest/routes";
import { appRouter } from "../../src/server/trpc/root";

type ProcedureDef = { _def: { type: "query" | "mutation" | "subscription" } };
const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;

describe("REST route table", () => {
  it("points every route at an existing procedure: GET at queries, the rest at mutations", () => {
    for (const route of restRoutes) {
      const proc = procedures[route.procedure];
      expect(proc, `${route.method} ${route.path} → ${route.procedure}`).toBeDefined();
      expect(proc!._def.type, route.procedure).toBe(route.method === "GET" ? "query" : "mutation");
    }
  });

  it("has no duplicate method and path", () => {
    const keys = restRoutes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("matches path parameters, decodes them, and tells 404 from 405", () => {
    const found = matchRoute(restRoutes, "DELETE", "/api/api-keys/abc%20d");
    expect(found).toMatchObject({ kind: "found", params: { id: "abc d" } });
    expect(matchRoute(restRoutes, "GET", "/api/account/")).toMatchObject({ kind: "found" });
    expect(matchRoute(restRoutes, "PUT", "/api/api-keys")).toEqual({ kind: "method-not-allowed", allow: ["POST", "GET"] });
    expect(matchRoute(restRoutes, "GET", "/api/api-keys/x/y")).toEqual({ kind: "not-found" });
    expect(matchRoute(restRoutes, "DELETE", "/api/api-keys/%E0%A4%A")).toEqual({ kind: "not-found" });
    expect(matchRoute(restRoutes, "HEAD", "/api/health")).toMatchObject({ kind: "found" });
  });
});
