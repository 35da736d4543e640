import { describe, expect, it } from "vitest";
import { baseUrlOf, call } from "./support/api";
import { checkContract } from "./support/contract";

describe("API reference", () => {
  it("serves the OpenAPI document, the same one the contract check uses", async () => {
    const res = await call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths)).toContain("/api/phone-numbers/{id}");
  });

  it("serves the interactive reference at /docs with its script from this service", async () => {
    const page = await fetch(`${baseUrlOf()}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-url="/api/openapi.json"');
    expect(html).toContain('src="/docs/scalar.js"');
    const script = await fetch(`${baseUrlOf()}/docs/scalar.js`);
    expect(script.headers.get("content-type")).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });

  it("the contract check fails on a renamed field, a wrong type and an undocumented status", async () => {
    await expect(checkContract("GET", "/api/health", 200, { state: "ok" })).rejects.toThrow(/does not match/);
    await expect(checkContract("GET", "/api/usage/current", 200, { currentMonth: { calls: "2" } })).rejects.toThrow(/does not match/);
    await expect(checkContract("GET", "/api/health", 418, {})).rejects.toThrow(/does not list/);
    await expect(checkContract("GET", "/api/health", 200, { status: "ok" })).resolves.toBeUndefined();
  });
});
