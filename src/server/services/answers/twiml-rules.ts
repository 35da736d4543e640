/**
 * The voice TwiML rules Twilio enforces, compiled once into lookup tables for the checker: which
 * elements exist (exact case), which may sit inside which, and which attributes each takes with
 * what values. The data is generated from the installed Twilio SDK by scripts/twiml-rules.ts
 * (a unit test fails when the committed file is stale), never written by hand.
 */
import data from "./twiml-rules.json";

/** One attribute's accepted values: free text, a non-negative integer, true/false, or one of a set. */
export type AttributeRule =
  | { type: "string" | "integer" | "boolean"; list?: true }
  | { type: "enum"; enum: string; list?: true };

/** One element kind, named after the SDK class that builds it (the same tag can be two kinds, e.g. <Sip>). */
export type ElementRule = {
  /** Child tag name → the kind it is under this parent. */
  children: Record<string, string>;
  attributes: Record<string, AttributeRule>;
};

export type TwimlRules = {
  source: string;
  /** The kind of the root `<Response>`. */
  root: string;
  elements: Record<string, ElementRule>;
  enums: Record<string, string[]>;
};

type AttributeCheck = {
  /** True when Twilio accepts `value` for this attribute. */
  accepts(value: string): boolean;
  /** What the value must be, for the customer: "a whole number", "one of: dtmf, speech". */
  expected: string;
};

export type ElementKind = {
  tag: string;
  children: Map<string, ElementKind>;
  attributes: Map<string, AttributeCheck>;
};

const rules = data as TwimlRules;

const INTEGER = /^[0-9]{1,10}$/;
const MAX_INT32 = 2_147_483_647;
/** Enums longer than this are named, not listed, in messages (SayVoice has hundreds of values). */
const LISTED_VALUES = 12;

function attributeCheck(rule: AttributeRule): AttributeCheck {
  let one: (value: string) => boolean;
  let expected: string;
  switch (rule.type) {
    case "string":
      return { accepts: () => true, expected: "text" };
    case "integer":
      one = (v) => INTEGER.test(v) && Number(v) <= MAX_INT32;
      expected = "a whole number";
      break;
    case "boolean":
      // Twilio documents lower case; it parses booleans without regard to case.
      one = (v) => v.length <= 5 && (v.toLowerCase() === "true" || v.toLowerCase() === "false");
      expected = "true or false";
      break;
    case "enum": {
      const values = rules.enums[rule.enum]!;
      const set = new Set(values);
      one = (v) => set.has(v);
      expected =
        values.length <= LISTED_VALUES
          ? `one of: ${values.join(", ")}`
          : `one of the ${rule.enum} values Twilio accepts`;
      break;
    }
  }
  if (rule.list !== true) return { accepts: one, expected };
  return {
    // A list attribute (Gather's `input`, the `…Event` lists) holds space-separated values.
    accepts: (v) => {
      const items = v.trim().split(/\s+/);
      return items[0] !== "" && items.every(one);
    },
    expected: `a space-separated list of ${expected.startsWith("one of") ? expected.replace(/^one of/, "values from") : expected}`,
  };
}

function compile(): { root: ElementKind; tagsByLowerCase: Map<string, string> } {
  const kinds = new Map<string, ElementKind>();
  const tagsByLowerCase = new Map<string, string>();
  for (const [name, element] of Object.entries(rules.elements)) {
    const attributes = new Map(Object.entries(element.attributes).map(([attr, rule]) => [attr, attributeCheck(rule)]));
    kinds.set(name, { tag: "", children: new Map(), attributes });
  }
  for (const [name, element] of Object.entries(rules.elements)) {
    const kind = kinds.get(name)!;
    for (const [tag, childName] of Object.entries(element.children)) {
      const child = kinds.get(childName)!;
      child.tag = tag;
      kind.children.set(tag, child);
      tagsByLowerCase.set(tag.toLowerCase(), tag);
    }
  }
  const root = kinds.get(rules.root)!;
  root.tag = "Response";
  tagsByLowerCase.set("response", "Response");
  return { root, tagsByLowerCase };
}

const compiled = compile();

/** The kind of the `<Response>` root. */
export const RESPONSE_KIND: ElementKind = compiled.root;

/** The element's correct spelling when `tag` differs from a TwiML element only in case. */
export function tagInOtherCase(tag: string): string | undefined {
  const known = compiled.tagsByLowerCase.get(tag.toLowerCase());
  return known === tag ? undefined : known;
}

/** True when `tag` is a TwiML element somewhere (so a refusal is about where it stands). */
export function isKnownTag(tag: string): boolean {
  return compiled.tagsByLowerCase.get(tag.toLowerCase()) === tag;
}
