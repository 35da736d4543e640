import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  ANSWER_LABELS,
  callOutcomesMarkdown,
  codeLabel,
  END_REASONS,
  endReasonOutcome,
  ERROR_CODES,
  errorCodeOutcome,
} from "../../src/shared/call-outcomes";
import { buildOpenApiDocument } from "../../src/server/openapi/build-openapi";
import { CALL_ANSWERS, CALL_END_REASONS } from "../../src/shared/schemas/enums";

const ROOT = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(e.name) ? [full] : [];
  });
}

/**
 * docs/decisions.md §14: the reference lists every endReason and every error.code
 * with what it means and what to do, from the one table the dashboard shows too.
 */
describe("call outcomes: one table for the reference and the dashboard", () => {
  it("docs/call-outcomes.md is the table's text (npx tsx scripts/docs/write-call-outcomes.ts rewrites it)", () => {
    const doc = readFileSync(path.join(ROOT, "docs/call-outcomes.md"), "utf8");
    expect(doc).toBe(callOutcomesMarkdown());
    // Every value of both catalogues has its row.
    for (const value of [...CALL_END_REASONS, ...Object.keys(ERROR_CODES)]) expect(doc).toContain(`| \`${value}\` |`);
  });

  it("has exactly the endReason catalogue, each value with a label, a meaning and an action", () => {
    expect(Object.keys(END_REASONS).sort()).toEqual([...CALL_END_REASONS].sort());
    for (const o of [...Object.values(END_REASONS), ...Object.values(ERROR_CODES)]) {
      expect(o.label.length).toBeGreaterThan(2);
      expect(o.meaning.length).toBeGreaterThan(10);
      expect(o.action.length).toBeGreaterThan(3);
    }
    expect(endReasonOutcome("no-final-status")?.label).toBe("No final status");
    expect(endReasonOutcome("__proto__")).toBeNull();
    expect(errorCodeOutcome("constructor")).toBeNull();
  });

  it("lists every error code the engine and the call services can put on a call", () => {
    // The call.error codes: what the engine and the close path write as `code`, and what start answers refuse with.
    const dirs = ["src/server/engine", "src/server/services/calls", "src/server/services/reconciliation"];
    const produced = new Set<string>();
    for (const file of dirs.flatMap((d) => sourceFiles(path.join(ROOT, d)))) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/\bcode:\s*(?:[^"\n]*\?\s*)?"([A-Z][A-Z0-9_]+)"(?:\s*:\s*"([A-Z][A-Z0-9_]+)")?/g))
        for (const c of [m[1], m[2]]) if (c) produced.add(c);
      for (const m of text.matchAll(/"((?:START_CALLBACK|CALL|FALLBACK)_[A-Z_]+)"/g)) produced.add(m[1]!);
    }
    // Request refusals (HTTP errors of the engine route and of the live-call commands), not call outcomes.
    for (const c of [
      "VALIDATION_FAILED",
      "NOT_FOUND",
      "FORBIDDEN",
      "SERVICE_UNAVAILABLE",
      "CALL_NOT_LIVE",
      "CALL_NOT_CONTROLLABLE",
    ])
      produced.delete(c);
    expect(produced.size).toBeGreaterThan(5);
    expect([...produced].filter((c) => !Object.hasOwn(ERROR_CODES, c))).toEqual([]);
  });

  it("feeds the OpenAPI descriptions of endReason and error.code", () => {
    const doc = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
    const text = JSON.stringify(doc);
    for (const [value, o] of Object.entries(END_REASONS))
      expect(text, value).toContain(JSON.stringify(o.meaning).slice(1, -1));
    for (const [value, o] of Object.entries(ERROR_CODES))
      expect(text, value).toContain(JSON.stringify(o.action).slice(1, -1));
  });
});

describe("answer forms and codes as a person reads them", () => {
  it("labels every answer form, and every code an attempt's answerUse can hold", () => {
    expect(Object.keys(ANSWER_LABELS).sort()).toEqual([...CALL_ANSWERS].sort());
    for (const answer of CALL_ANSWERS) expect(codeLabel(answer)).toBe(ANSWER_LABELS[answer]);
    for (const [code, o] of Object.entries(ERROR_CODES)) expect(codeLabel(code)).toBe(o.label);
    expect(codeLabel("no-answer")).toBe(END_REASONS["no-answer"].label);
    expect(codeLabel("SOMETHING_NEW")).toBeNull();
  });
});
