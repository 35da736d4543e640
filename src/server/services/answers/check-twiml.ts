/**
 * Is the customer's XML a TwiML document we may hand to Twilio? saxes (a conforming, non-validating
 * XML parser that never reads DTDs, so no entity expansion) decides well-formedness; a small walk
 * over its events adds our own rules: at most 64 KiB, a single root `<Response>`, an optional
 * UTF-8 `<?xml …?>` declaration, and no DOCTYPE or processing instructions; and Twilio's own rules
 * (twiml-rules.ts, generated from the Twilio SDK): known elements in exact case, each only where
 * Twilio allows it, with known attributes holding values of the right type. A document Twilio would
 * refuse must fail here, or the caller hears Twilio's "application error" instead of our fallback.
 * One pass over saxes's events with a table lookup per element and attribute, linear in the size.
 */
import { SaxesParser } from "saxes";
import { excerpt } from "./excerpt";
import { explainSaxesError, Refusal, type WalkState } from "./explain-xml-error";
import { type ElementKind, isKnownTag, RESPONSE_KIND, tagInOtherCase } from "./twiml-rules";
import { exceedsTwimlSize, MAX_TWIML_BYTES } from "./twiml-size";

export type DocumentCheck = { ok: true } | { ok: false; reason: string };

/**
 * True only for a well-formed XML document (at most 64 KiB) whose single root element is
 * `<Response>`. Allowed: an optional leading BOM, an optional `<?xml …?>` declaration (UTF-8),
 * comments, whitespace, attributes, nested elements, CDATA, the five predefined entities and
 * character references. Refused: DTDs, processing instructions, any other root, and anything
 * ill-formed.
 */
export function isTwimlResponseDocument(xml: string): boolean {
  return checkResponseDocument(xml).ok;
}

/** `source`/`shift`: where `xml` sits in what the customer sent, so positions in messages match their text. */
export function checkResponseDocument(xml: string, source = xml, shift = 0): DocumentCheck {
  if (passed.has(xml)) return OK;
  if (exceedsTwimlSize(xml)) return { ok: false, reason: `document is larger than ${MAX_TWIML_BYTES / 1024} KiB` };
  // saxes reads a lone surrogate together with the next character; a Unicode-aware pattern finds it.
  const lone = xml.search(LONE_SURROGATE);
  const refusal =
    lone === -1 ? walk(xml) : new Refusal(`character U+${hex4(xml.charCodeAt(lone))} is not allowed in XML`, lone);
  if (refusal === null) {
    remember(xml);
    return OK;
  }
  return { ok: false, reason: `${refusal.reason} (${position(source, refusal.at + shift)})` };
}

const OK: DocumentCheck = Object.freeze({ ok: true });

/**
 * Documents that passed, recently: the check is a pure function of the text, and a backend answers
 * most calls with one of a few documents (a menu, a dial), so the same text is not parsed again.
 * A new SaxesParser and its walk were about 7 % of a voice request's process CPU (a `perf` profile
 * under bench/side-by-side.ts voice-max); a lookup hashes the string once. Bounded: documents up to
 * 4 KiB, 256 of them (at most 2 MiB of UTF-16), the oldest forgotten first. Refusals are not kept:
 * their message depends on where the document sat in the answer.
 */
const PASSED_MAX = 256;
const PASSED_MAX_CHARS = 4096;
const passed = new Set<string>();

function remember(xml: string): void {
  if (xml.length > PASSED_MAX_CHARS) return;
  if (passed.size >= PASSED_MAX) passed.delete(passed.values().next().value!);
  passed.add(xml);
}

const LONE_SURROGATE = /\p{Cs}/u;

function hex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, "0");
}

function walk(xml: string): Refusal | null {
  // XML 1.0 character rules even under a 1.1 declaration, as Twilio reads 1.0.
  const parser = new SaxesParser({ position: false, defaultXMLVersion: "1.0", forceXMLVersion: true });
  const state: WalkState = { xml, markupEnd: 0, sawRoot: false, lastClosed: "", atEnd: false };
  const refuse = (reason: string, at: number): never => {
    throw new Refusal(reason, at < 0 ? parser.position : at);
  };
  const markupEnds = () => {
    state.markupEnd = parser.position;
  };

  parser.on("xmldecl", ({ encoding }) => {
    markupEnds();
    // We hand the document on as UTF-8 text; any other label would make Twilio mis-decode it.
    if (encoding !== undefined && encoding.toLowerCase() !== "utf-8") {
      refuse(`XML declaration says encoding="${excerpt(encoding, 20)}"; only UTF-8 is supported`, xml.indexOf("<?xml"));
    }
  });
  parser.on("doctype", () => refuse("DOCTYPE declarations are not allowed", xml.indexOf("<!DOCTYPE", state.markupEnd)));
  parser.on("processinginstruction", () =>
    refuse("processing instructions are not allowed", xml.indexOf("<?", state.markupEnd)),
  );
  parser.on("comment", markupEnds);
  parser.on("cdata", markupEnds);
  parser.on("opentagstart", ({ name }) => {
    if (state.sawRoot) return;
    state.sawRoot = true;
    if (name !== "Response") {
      refuse(`root element is <${excerpt(name, 40)}>, expected <Response>`, xml.indexOf("<", state.markupEnd));
    }
  });
  // The kinds of the open elements, innermost last.
  const open: ElementKind[] = [];
  // Until markupEnds() runs, the last markup ended before the tag at hand, so the next '<' is its start.
  const tagAt = () => xml.indexOf("<", state.markupEnd);
  parser.on("opentag", ({ name, attributes }) => {
    const parent = open[open.length - 1];
    const kind = parent === undefined ? RESPONSE_KIND : parent.children.get(name);
    if (kind === undefined) refuse(misplaced(name, parent!), tagAt());
    for (const attribute in attributes) {
      const check = kind!.attributes.get(attribute);
      const value = attributes[attribute] as string; // without the xmlns option, saxes gives plain strings
      if (check === undefined) {
        if (attribute === "xmlns" || attribute.startsWith("xmlns:")) continue; // namespace declarations are not attributes
        refuse(`<${excerpt(name, 40)}> has no attribute ${excerpt(attribute, 40)}`, tagAt());
      } else if (!check.accepts(value)) {
        refuse(`<${name}> attribute ${attribute}="${excerpt(value, 40)}" must be ${check.expected}`, tagAt());
      }
    }
    open.push(kind!);
    markupEnds();
  });
  parser.on("closetag", ({ name }) => {
    open.pop();
    markupEnds();
    state.lastClosed = name;
  });
  // saxes would go on after an error; the first one decides.
  parser.on("error", (err) => {
    throw explainSaxesError(err.message, parser.position, state);
  });

  try {
    parser.write(xml);
    state.atEnd = true;
    parser.close();
    return null;
  } catch (err) {
    if (err instanceof Refusal) return err;
    throw err;
  }
}

/** Why `<name>` may not stand inside `parent`, in the customer's terms. */
function misplaced(name: string, parent: ElementKind): string {
  const tag = excerpt(name, 40);
  const spelled = tagInOtherCase(name);
  if (spelled !== undefined) return `<${tag}> is not a TwiML element (names are case-sensitive: <${spelled}>)`;
  if (!isKnownTag(name)) return `<${tag}> is not a TwiML element`;
  return `<${tag}> is not allowed inside <${parent.tag}>`;
}

/** "line L, column C" for a code-unit offset (computed only when reporting an error). */
function position(s: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(at, s.length);
  for (let k = 0; k < end; k++) {
    if (s.charCodeAt(k) === 0x0a) {
      line++;
      lineStart = k + 1;
    }
  }
  return `line ${line}, column ${end - lineStart + 1}`;
}
