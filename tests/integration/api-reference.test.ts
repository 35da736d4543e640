import { describe, expect, it } from "vitest";
import { baseUrlOf, call } from "../support/api";
import { checkContract } from "../support/contract";

type Json = unknown;

/** Every property of every schema in the document, and every parameter, that has no description. */
function undescribed(node: Json, at = "#", out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n, i) => undescribed(n, `${at}/${i}`, out));
  else if (node && typeof node === "object") {
    const obj = node as Record<string, Json>;
    if (obj.properties && typeof obj.properties === "object") {
      for (const [name, schema] of Object.entries(obj.properties as Record<string, Record<string, Json>>)) {
        if (typeof schema?.description !== "string" || !schema.description.trim()) out.push(`${at}/properties/${name}`);
      }
    }
    if (Array.isArray(obj.parameters)) {
      for (const p of obj.parameters as Record<string, Json>[])
        if (typeof p.description !== "string" || !p.description) out.push(`${at}/parameters/${String(p.name)}`);
    }
    for (const [key, value] of Object.entries(obj))
      if (key !== "example" && key !== "examples") undescribed(value, `${at}/${key}`, out);
  }
  return out;
}

describe("API reference", () => {
  it("serves the OpenAPI document, the same one the contract check uses", async () => {
    const res = await call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    expect(Object.keys(res.body.paths)).toContain("/api/phone-numbers/{id}");
  });

  it("describes every field and parameter it serves", async () => {
    const res = await call("GET", "/api/openapi.json");
    expect(undescribed(res.body)).toEqual([]);
    // The walk itself finds fields: a document it could not read would pass trivially.
    expect(undescribed({ properties: { a: { type: "string" }, b: { type: "string", description: "b" } } })).toEqual([
      "#/properties/a",
    ]);
    const text = JSON.stringify(res.body);
    expect(text).toContain("Public HTTPS, checked again at delivery");
    expect(text).toContain("docs/api.md#errors");
    expect(text).toContain("neither starting with 0 or 1");
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
    await expect(checkContract("GET", "/api/usage/current", 200, { currentMonth: { calls: "2" } })).rejects.toThrow(
      /does not match/,
    );
    await expect(checkContract("GET", "/api/health", 418, {})).rejects.toThrow(/does not list/);
    await expect(checkContract("GET", "/api/health", 200, { status: "ok" })).resolves.toBeUndefined();
  });
});
