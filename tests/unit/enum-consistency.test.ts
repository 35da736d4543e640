import { SHADOW_OUTCOMES } from "../../src/shared/schemas/shadow";
import { ALERT_TYPES } from "../../src/shared/schemas/alerts";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as generatedEnums from "../../src/generated/prisma/enums";
import { buildOpenApiDocument } from "../../src/server/openapi/build-openapi";
import {
  CALL_DIRECTIONS,
  CALL_END_REASONS,
  CALL_STATUSES,
  TERMINAL_CALL_STATUSES,
  TWILIO_CALL_STATUSES,
  ZAccountStatus,
  ZCallDirection,
  ZCallEndReason,
  ZCallStatus,
  ZDeliveryStatus,
} from "../../src/shared/schemas/enums";
import {
  ALL_EVENT_TYPES,
  ENDPOINT_EVENT_TYPES,
  EVENT_TYPES,
  PROGRESS_EVENT_TYPES,
  RECORDING_EVENT_TYPES,
  TRANSFER_EVENT_TYPES,
  USAGE_EVENT_TYPES,
  ZEventType,
} from "../../src/shared/schemas/events";

/**
 * An enum value added in one place and not another fails here: the Prisma
 * schema, its migrations, the generated client, the zod schemas, the served
 * OpenAPI document, and no second spelling of a whole enum anywhere in src/.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
// Every enum the generated client exports, so a new Prisma enum joins the comparison by itself.
const families: Record<string, readonly string[]> = {
  ...Object.fromEntries(
    Object.entries(generatedEnums)
      .filter(([, v]) => typeof v === "object" && v !== null)
      .map(([k, v]) => [k, Object.values(v as object) as string[]]),
  ),
  CallDirection: CALL_DIRECTIONS,
  EventType: ALL_EVENT_TYPES,
  CallStatus: CALL_STATUSES,
  CallEndReason: CALL_END_REASONS,
};
// Twilio's vocabularies: not in the API document as such, but spelled once all the same.
const spelledFamilies: Record<string, readonly string[]> = {
  ...families,
  TwilioCallStatus: TWILIO_CALL_STATUSES,
  TerminalCallStatus: TERMINAL_CALL_STATUSES,
};

function prismaSchemaEnums(): Record<string, string[]> {
  const text = readFileSync(path.join(ROOT, "prisma/schema.prisma"), "utf8");
  return Object.fromEntries(
    [...text.matchAll(/^enum (\w+) \{([^}]*)\}/gm)].map((m) => [
      m[1]!,
      m[2]!.split(/\s+/).filter((v) => /^\w+$/.test(v)),
    ]),
  );
}

/** Replays CREATE TYPE … AS ENUM and ALTER TYPE … ADD VALUE over the migrations, in order. */
function migrationEnums(): Record<string, string[]> {
  const dir = path.join(ROOT, "prisma/migrations");
  const enums: Record<string, string[]> = {};
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name, "migration.sql");
    if (!statSync(path.join(dir, name)).isDirectory()) continue;
    const sql = readFileSync(file, "utf8");
    for (const m of sql.matchAll(/CREATE TYPE "(\w+)" AS ENUM \(([^)]*)\)/g))
      enums[m[1]!] = [...m[2]!.matchAll(/'([^']*)'/g)].map((v) => v[1]!);
    for (const m of sql.matchAll(/ALTER TYPE "(\w+)" ADD VALUE (?:IF NOT EXISTS )?'([^']*)'/g))
      enums[m[1]!]!.push(m[2]!);
    for (const m of sql.matchAll(/DROP TYPE (?:IF EXISTS )?"(\w+)"/g)) delete enums[m[1]!];
  }
  return enums;
}

function collectEnums(node: unknown, out: string[][] = []): string[][] {
  if (Array.isArray(node)) node.forEach((n) => collectEnums(n, out));
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "enum" && Array.isArray(value)) out.push(value.map(String));
      else if (key !== "example" && key !== "examples") collectEnums(value, out);
    }
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(e.name) ? [full] : [];
  });
}

/** Declared subsets of a family that an enum of the document may hold instead of the whole. */
const SUBFAMILIES: Record<string, readonly (readonly string[])[]> = {
  // An endpoint's filter: every type but call.started, or * (docs/decisions.md §15).
  EventType: [
    EVENT_TYPES,
    PROGRESS_EVENT_TYPES,
    TRANSFER_EVENT_TYPES,
    RECORDING_EVENT_TYPES,
    USAGE_EVENT_TYPES,
    ALERT_TYPES,
    [...ENDPOINT_EVENT_TYPES, "*"],
  ],
};

/**
 * Vocabularies of their own that happen to share a word with a database enum: a shadow's or replay's
 * outcome (docs/decisions.md §23) says `failed` of an answer, not of a call.
 */
const OWN_VOCABULARIES: readonly (readonly string[])[] = [SHADOW_OUTCOMES];
const isOwnVocabulary = (e: readonly string[]) =>
  OWN_VOCABULARIES.some((vs) => JSON.stringify([...vs].sort()) === JSON.stringify([...e].sort()));

describe("one source per enum", () => {
  it("the Prisma schema, the generated client and the migrations agree on every database enum", () => {
    const schema = prismaSchemaEnums();
    const migrations = migrationEnums();
    expect(Object.keys(schema).sort()).toEqual(Object.keys(migrations).sort());
    for (const [name, values] of Object.entries(schema)) {
      expect(migrations[name], `migrations' ${name}`).toEqual(values);
      expect(families[name], `generated ${name}`).toEqual(values);
    }
  });

  it("the zod schemas list exactly those values", () => {
    expect(ZAccountStatus.options).toEqual(families.AccountStatus);
    expect(ZDeliveryStatus.options).toEqual(families.DeliveryStatus);
    expect(ZCallDirection.options).toEqual(families.CallDirection);
    expect(ZEventType.options).toEqual(families.EventType);
    expect(ZCallStatus.options).toEqual(families.CallStatus);
    expect(ZCallEndReason.options).toEqual(families.CallEndReason);
  });

  it("every enum in the OpenAPI document that holds one value of a family holds all of them", () => {
    const docEnums = collectEnums(buildOpenApiDocument());
    // Internal to the database: never part of the public API.
    const internal = new Set(["AccountTokenPurpose"]);
    const publicFamilies = Object.entries(families).filter(([n]) => !internal.has(n));
    for (const [name, values] of publicFamilies) {
      const touching = docEnums.filter((e) => !isOwnVocabulary(e) && e.some((v) => values.includes(v)));
      expect(touching.length, `${name} appears in the document`).toBeGreaterThan(0);
      // Families may share values (a call's status `completed` is also an endReason), and a family may
      // declare subsets (an event schema names only its own types: the call events, the transfer pair,
      // the recording pair): each enum that holds a value of this one must be, whole, one of the
      // families it touches or one of their declared subsets.
      for (const e of touching) {
        const sorted = [...e].sort();
        const candidates = publicFamilies
          .filter(([, vs]) => e.some((v) => vs.includes(v)))
          .flatMap(([n, vs]) => [vs, ...(SUBFAMILIES[n] ?? [])]);
        expect(
          candidates.some((vs) => JSON.stringify([...vs].sort()) === JSON.stringify(sorted)),
          `${name}: ${sorted.join(",")}`,
        ).toBe(true);
      }
      expect(
        touching.some((e) => JSON.stringify([...e].sort()) === JSON.stringify([...values].sort())),
        `${name} appears whole`,
      ).toBe(true);
    }
  });

  it("no file in src/ spells a whole enum or the E.164 patterns again", () => {
    const owners = new Set([
      "src/shared/schemas/enums.ts",
      "src/shared/schemas/events.ts",
      "src/shared/schemas/e164.ts",
    ]);
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(ROOT, "src"))) {
      const rel = path.relative(ROOT, file);
      if (owners.has(rel)) continue;
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          // A list or union of quoted strings (`"a", "b"` or `"a" | "b"`) of exactly a family's values is a second
          // spelling. One with values beyond them is another enum (Twilio's RecordingTrack holds inbound, outbound
          // and both: the legs a recording hears, not a call's direction).
          for (const run of line.matchAll(/(["'])[^"']*\1(?:\s*[,|]\s*(["'])[^"']*\2)+/g)) {
            const listed = [...run[0].matchAll(/["']([^"']*)["']/g)].map((m) => m[1] ?? "");
            for (const [name, values] of Object.entries(spelledFamilies))
              if (values.every((v) => listed.includes(v)) && listed.every((v) => values.includes(v)))
                offenders.push(`${rel}:${i + 1} spells ${name}`);
          }
          if (line.includes("[2-9]\\d{2}[2-9]") || line.includes("\\+[1-9]\\d{1,14}"))
            offenders.push(`${rel}:${i + 1} spells an E.164 pattern`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
