// Derives the voice TwiML rules that the engine checks customers' documents against (which elements
// exist, what may nest in what, which attributes each takes and what values those accept) from the
// installed Twilio SDK's TwiML builder, and writes them to src/server/services/answers/twiml-rules.json.
// The SDK is generated from Twilio's own TwiML definitions, so this is the nearest published source
// of the rules Twilio enforces. Run after upgrading `twilio`:
//   npx tsx scripts/twiml-rules.ts          (writes the file)
//   npx tsx scripts/twiml-rules.ts --check  (exits 1 if the committed file is stale)
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AttributeRule, ElementRule, TwimlRules } from "../src/server/services/answers/twiml-rules";

export const RULES_PATH = "src/server/services/answers/twiml-rules.json";

const require = createRequire(import.meta.url);

/** Reads the rules off the installed SDK: its runtime classes for tags and nesting, its typings for attributes. */
export function deriveTwimlRules(): TwimlRules {
  const sdkDir = path.dirname(require.resolve("twilio/package.json"));
  const version = (JSON.parse(readFileSync(path.join(sdkDir, "package.json"), "utf8")) as { version: string }).version;
  const dtsPath = path.join(sdkDir, "lib/twiml/VoiceResponse.d.ts");
  const typings = readTypings(dtsPath);

  // The runtime builder says which tag each child method writes and which class it returns.
  const VoiceResponse = require("twilio/lib/twiml/VoiceResponse") as new () => BuilderNode;
  const elements: Record<string, ElementRule> = {};
  const queue: Array<[kind: string, node: BuilderNode]> = [["VoiceResponse", new VoiceResponse()]];
  const seen = new Set<string>(["VoiceResponse"]);
  while (queue.length > 0) {
    const [kind, node] = queue.shift()!;
    const methods = typings.methods.get(kind);
    if (methods === undefined) throw new Error(`no typings for class ${kind}`);
    const rule: ElementRule = { children: {}, attributes: {} };
    for (const [method, attributesInterface] of methods) {
      const child = (node as unknown as Record<string, (a: object, b?: string) => BuilderNode>)[method]!.call(
        node,
        {},
        "x",
      );
      const childKind = child.constructor.name;
      const tag = child._getXml().name;
      if (rule.children[tag] !== undefined && rule.children[tag] !== childKind) {
        throw new Error(`<${tag}> under ${kind} is built by two classes`);
      }
      rule.children[tag] = childKind;
      const childAttributes = attributesFor(typings, attributesInterface);
      const known = elements[childKind];
      if (known !== undefined && JSON.stringify(known.attributes) !== JSON.stringify(childAttributes)) {
        throw new Error(`class ${childKind} takes different attributes from different parents`);
      }
      if (!seen.has(childKind)) {
        seen.add(childKind);
        elements[childKind] = { children: {}, attributes: childAttributes };
        queue.push([childKind, child]);
      }
    }
    elements[kind] = { children: rule.children, attributes: elements[kind]?.attributes ?? {} };
  }

  const used = new Set<string>();
  for (const element of Object.values(elements)) {
    for (const attribute of Object.values(element.attributes)) if (attribute.type === "enum") used.add(attribute.enum);
  }
  const enums: Record<string, string[]> = {};
  for (const name of [...used].sort()) enums[name] = typings.enums.get(name)!;
  return {
    source: `twilio@${version} lib/twiml/VoiceResponse`,
    root: "VoiceResponse",
    elements: sortKeys(elements),
    enums,
  };
}

type BuilderNode = { constructor: { name: string }; _getXml(): { name: string } };

type Typings = {
  /** Class → [child method, attributes interface or null for none] for each method that adds a child element. */
  methods: Map<string, Array<[string, string | null]>>;
  /** Interface → property name → type as written. */
  interfaces: Map<string, Map<string, string>>;
  enums: Map<string, string[]>;
};

// The typings are generated code with one declaration per line, so a line reader is exact enough;
// anything it does not recognise inside a declaration stops the script rather than being skipped.
const CLASS = /^(?:declare | {4}export )class (\w+) extends TwiML \{$/;
const INTERFACE = /^ {4}export interface (\w+) \{$/;
const ENUM = /^ {4}type (\w+) = (.*);$/;
const METHOD =
  /^ {4,8}(\w+)\(attributes\??: (?:VoiceResponse\.(\w+)|object)(?:, \w+\??: string)?\): VoiceResponse\.\w+;$/;
const PROPERTY = /^ {8}(?:(\w+)|"([\w:-]+)")\?: ([\w[\]]+);$/;

function readTypings(dtsPath: string): Typings {
  const methods = new Map<string, Array<[string, string | null]>>();
  const interfaces = new Map<string, Map<string, string>>();
  const enums = new Map<string, string[]>();
  let inClass: Array<[string, string | null]> | null = null;
  let inInterface: Map<string, string> | null = null;
  for (const line of readFileSync(dtsPath, "utf8").split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("*") || trimmed.startsWith("/**")) continue;
    let m: RegExpMatchArray | null;
    if ((m = line.match(CLASS))) {
      inClass = [];
      methods.set(m[1]!, inClass);
      inInterface = null;
    } else if ((m = line.match(INTERFACE))) {
      inInterface = new Map();
      interfaces.set(m[1]!, inInterface);
      inClass = null;
    } else if ((m = line.match(ENUM))) {
      enums.set(
        m[1]!,
        m[2]!.split(" | ").map((v) => JSON.parse(v) as string),
      );
    } else if (trimmed === "}") {
      inClass = null;
      inInterface = null;
    } else if (inInterface !== null) {
      if (!(m = line.match(PROPERTY))) throw new Error(`unexpected line in an attributes interface: ${line}`);
      inInterface.set(m[1] ?? m[2]!, m[3]!);
    } else if (inClass !== null && (m = line.match(METHOD))) {
      // Overloads repeat the method; the one with an attributes parameter is the one to read.
      if (!inClass.some(([method]) => method === m![1])) inClass.push([m[1]!, m[2] ?? null]);
    }
  }
  return { methods, interfaces, enums };
}

function attributesFor(typings: Typings, interfaceName: string | null): Record<string, AttributeRule> {
  if (interfaceName === null) return {};
  const declaration = typings.interfaces.get(interfaceName);
  if (declaration === undefined) throw new Error(`no interface ${interfaceName}`);
  const out: Record<string, AttributeRule> = {};
  for (const [name, type] of declaration) out[name] = attributeRule(typings, type, `${interfaceName}.${name}`);
  return sortKeys(out);
}

function attributeRule(typings: Typings, type: string, where: string): AttributeRule {
  if (type.endsWith("[]")) return { ...attributeRule(typings, type.slice(0, -2), where), list: true };
  if (type === "string") return { type: "string" };
  if (type === "number") return { type: "integer" };
  if (type === "boolean") return { type: "boolean" };
  if (typings.enums.has(type)) return { type: "enum", enum: type };
  throw new Error(`${where}: attribute type ${type} is not understood; teach scripts/twiml-rules.ts about it`);
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function renderRules(rules: TwimlRules): string {
  return `${JSON.stringify(rules, null, 1)}\n`;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rendered = renderRules(deriveTwimlRules());
  if (process.argv.includes("--check")) {
    const committed = readFileSync(RULES_PATH, "utf8");
    if (committed !== rendered) {
      console.error(`${RULES_PATH} differs from what the installed SDK yields; run npx tsx scripts/twiml-rules.ts`);
      process.exit(1);
    }
    console.log(`${RULES_PATH} matches the installed SDK`);
  } else {
    writeFileSync(RULES_PATH, rendered);
    console.log(`wrote ${RULES_PATH}`);
  }
}
