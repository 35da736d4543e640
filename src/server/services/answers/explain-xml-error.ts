/**
 * Turns saxes's first well-formedness error into a message for the customer that says what is
 * wrong and where it starts (saxes reports where it noticed, often a few characters later).
 * Runs once per refused document, so its look-ups may scan; each is still linear.
 */
import { isNameChar, isNameStartChar, isS } from "xmlchars/xml/1.0/ed5.js";
import { excerpt } from "./excerpt";
import { firstInvalidXmlChar } from "./xml-chars";

export class Refusal {
  constructor(
    readonly reason: string,
    readonly at: number,
  ) {}
}

/** What the walk over saxes's events knows when an error arrives. */
export type WalkState = {
  xml: string;
  /** Offset just past the last complete markup (declaration, comment, CDATA, tag). */
  markupEnd: number;
  sawRoot: boolean;
  /** Name of the element saxes closed last (it closes the open one before it reports a mismatch). */
  lastClosed: string;
  /** True once the whole document was read and saxes runs its end-of-document checks. */
  atEnd: boolean;
};

const PREDEFINED_ENTITIES = new Set(["amp", "lt", "gt", "quot", "apos"]);

const DECLARATION_ERRORS = new Set([
  "XML declaration is incomplete",
  "did not expect any more name/value pairs",
  "value required",
  "value must be quoted",
  "whitespace required",
  "The character ? is disallowed anywhere in XML declarations",
]);

export function explainSaxesError(saxesMessage: string, pos: number, state: WalkState): Refusal {
  const { xml, markupEnd } = state;
  const message = saxesMessage.endsWith(".") ? saxesMessage.slice(0, -1) : saxesMessage;
  const refusal = (reason: string, at: number) => new Refusal(reason, at < 0 ? pos : at);
  const markupAt = (prefix: string) => xml.indexOf(prefix, markupEnd);

  if (state.atEnd) {
    // saxes reports open elements before an unfinished comment or tag; the unfinished part is the news.
    const unfinished = firstUnfinished(xml, markupEnd);
    if (unfinished !== null) return unfinished;
    if (message === "document must contain a root element") return refusal("no root element", xml.length);
    if (message.startsWith("unclosed tag: ")) {
      return refusal(`unclosed element <${excerpt(message.slice(14), 40)}>`, xml.length);
    }
    if (message === "unexpected end") return refusal("unexpected end of document", xml.length);
  }

  switch (message) {
    case "text data outside of root node": {
      const at = skipSpace(xml, markupEnd);
      if (xml.startsWith("<![CDATA[", at)) return refusal("CDATA outside the root element", at);
      return refusal(state.sawRoot ? "content after the root element" : "text before the root element", at);
    }
    case "documents may contain only one root":
      return refusal("a second root element after </Response>", markupAt("<"));
    case "unexpected close tag": {
      const at = xml.lastIndexOf("</", pos - 1);
      const name = readName(xml, at + 2);
      return refusal(`mismatched end tag </${excerpt(name, 40)}>, expected </${excerpt(state.lastClosed, 40)}>`, at);
    }
    case "weird empty close tag":
    case "disallowed character in closing tag": {
      const at = markupAt("</");
      const name = at < 0 ? "" : readName(xml, at + 2);
      return refusal(name === "" ? "malformed end tag" : `malformed end tag </${excerpt(name, 40)}`, at);
    }
    case "disallowed character in tag name": {
      const at = markupAt("<");
      const name = at < 0 ? "" : readName(xml, at + 1);
      if (name === "") return refusal("'<' that does not start a tag", at);
      return refusal(`malformed attribute in <${excerpt(name, 40)}>`, pos - 1);
    }
    case "no whitespace between attributes":
    case "disallowed character in attribute name":
      return refusal(`malformed attribute in <${excerpt(readName(xml, markupAt("<") + 1), 40)}>`, pos - 1);
    case "forward-slash in opening tag not followed by >":
      return refusal("'/' not followed by '>' in a start tag", xml.lastIndexOf("/", pos - 1));
    case "attribute without value": {
      const attr = nameEndingAt(xml, pos - 1);
      return refusal(`attribute ${excerpt(attr.name, 40)} has no '=' value`, attr.at);
    }
    case "unquoted attribute value": {
      const attr = nameEndingAt(xml, xml.lastIndexOf("=", pos - 1));
      return refusal(`attribute ${excerpt(attr.name, 40)} value is not quoted`, attr.at);
    }
    case "undefined entity":
    case "empty entity name":
    case "disallowed character in entity name":
    case "malformed character entity": {
      const at = xml.lastIndexOf("&", pos - 1);
      return reference(xml, at).refusal ?? refusal(message, at);
    }
    case 'the string "]]>" is disallowed in char data':
      return refusal("']]>' is not allowed in text", xml.lastIndexOf("]]>", pos));
    case "disallowed character": {
      const bad = firstInvalidXmlChar(xml, Math.min(markupEnd, pos), Math.min(xml.length, pos + 1));
      if (bad !== -1) return badChar(xml, bad);
      if (xml.charCodeAt(pos - 1) === 0x3c) return refusal("'<' inside an attribute value", pos - 1);
      return refusal("character not allowed here", pos - 1);
    }
    case "malformed comment": {
      // saxes has already reported the comment, so look back for its start.
      const at = xml.lastIndexOf("<!--", pos - 1);
      return refusal("'--' inside a comment", at < 0 ? -1 : xml.indexOf("--", at + 4));
    }
    case "incorrect syntax":
      return refusal("unexpected <! markup", markupAt("<!"));
    case "inappropriately located doctype declaration":
      return refusal("DOCTYPE declarations are not allowed", markupAt("<!DOCTYPE"));
    case "an XML declaration must be at the start of the document":
    case "the XML declaration must appear at the start of the document": {
      const at = markupAt("<?");
      if (xml.startsWith("<?xml", at)) return refusal("the XML declaration must come first in the document", at);
      return refusal("processing instructions are not allowed", at);
    }
    case "processing instruction without a target":
    case "disallowed character in processing instruction name":
    case "processing instructions are not allowed before root":
      return refusal("processing instructions are not allowed", markupAt("<?"));
    case "expected the name version":
    case "XML declaration must contain a version":
      return refusal("XML declaration must start with version", pos - 1);
    case "version number must match /^1\\.[0-9]+$/":
      return refusal(`unsupported XML version "${excerpt(declaredVersion(xml), 20)}"`, xml.indexOf("<?xml"));
    case 'standalone value must match "yes" or "no"':
      return refusal('standalone must be "yes" or "no"', xml.indexOf("<?xml"));
  }
  if (message.startsWith("duplicate attribute: ")) {
    const attr = message.slice(21);
    return refusal(`duplicate attribute ${excerpt(attr, 40)}`, duplicateAttributeAt(xml, markupAt("<"), attr));
  }
  if (message.startsWith("unmatched closing tag: ")) {
    // No element is open: the end tag stands before the root or after it.
    if (!state.sawRoot) return refusal("'<' that does not start a tag", markupAt("</"));
    return refusal("content after the root element", skipSpace(xml, markupEnd));
  }
  if (message.startsWith("expected one of version") || message.startsWith("expected the name version")) {
    return refusal("XML declaration must start with version", pos - 1);
  }
  if (
    DECLARATION_ERRORS.has(message) ||
    message.startsWith("expected one of") ||
    message.startsWith("encoding value must match")
  ) {
    return refusal("malformed XML declaration", pos - 1);
  }
  return refusal(excerpt(message, 120), pos);
}

/**
 * The first construct from `from` on that the document ends inside of: an unclosed comment, CDATA
 * section, declaration or tag, or a broken `&` reference in text (saxes reads a bad `&` up to the
 * next `;`, which may be the end). Null when there is none.
 */
function firstUnfinished(xml: string, from: number): Refusal | null {
  for (let k = from; k < xml.length; k++) {
    const c = xml.charCodeAt(k);
    if (c === 0x3c) return unfinishedMarkup(xml, k);
    if (c === 0x26) {
      const ref = reference(xml, k);
      if (ref.refusal) return ref.refusal;
      k = ref.end - 1;
    }
  }
  return null;
}

function unfinishedMarkup(xml: string, at: number): Refusal | null {
  if (xml.startsWith("<!--", at)) {
    const dashes = xml.indexOf("--", at + 4);
    return dashes === -1 ? new Refusal("unclosed comment", at) : new Refusal("'--' inside a comment", dashes);
  }
  if (xml.startsWith("<![CDATA[", at)) return new Refusal("unclosed CDATA section", at);
  if (xml.startsWith("<!DOCTYPE", at)) return new Refusal("DOCTYPE declarations are not allowed", at);
  if (xml.startsWith("<!", at)) return new Refusal("unexpected <! markup", at);
  if (xml.startsWith("<?xml", at)) return new Refusal("unclosed XML declaration", at);
  if (xml.startsWith("<?", at)) return new Refusal("processing instructions are not allowed", at);
  if (xml.startsWith("</", at)) {
    const name = readName(xml, at + 2);
    return new Refusal(name === "" ? "malformed end tag" : `malformed end tag </${excerpt(name, 40)}`, at);
  }
  const name = readName(xml, at + 1);
  if (name === "") return new Refusal("'<' that does not start a tag", at);
  return unfinishedStartTag(xml, at, name);
}

/** Walks the attributes of a start tag for an unterminated value or a broken `&` in one. */
function unfinishedStartTag(xml: string, at: number, name: string): Refusal | null {
  for (const attr of attributes(xml, at, name)) {
    if (attr === "unclosed") return new Refusal(`unclosed start tag <${excerpt(name, 40)}`, at);
    if (attr.valueEnd === -1) return new Refusal(`unterminated value of attribute ${excerpt(attr.name, 40)}`, attr.at);
    for (let v = xml.indexOf("&", attr.valueStart); v !== -1 && v < attr.valueEnd; v = xml.indexOf("&", v + 1)) {
      const ref = reference(xml, v);
      if (ref.refusal) return ref.refusal;
    }
  }
  return null; // complete: saxes's own message stands
}

/** Where the second attribute called `attr` of the start tag at `at` begins. */
function duplicateAttributeAt(xml: string, at: number, attr: string): number {
  let seen = false;
  for (const a of attributes(xml, at, readName(xml, at + 1))) {
    if (a === "unclosed") break;
    if (a.name !== attr) continue;
    if (seen) return a.at;
    seen = true;
  }
  return at;
}

type Attribute = { name: string; at: number; valueStart: number; valueEnd: number };

/** The attributes of the start tag `<name` at `at`, quote-aware, up to its `>`; "unclosed" where it breaks off. */
function* attributes(xml: string, at: number, name: string): Generator<Attribute | "unclosed"> {
  let k = at + 1 + name.length;
  for (;;) {
    k = skipSpace(xml, k);
    const c = xml.charCodeAt(k);
    if (k >= xml.length) return yield "unclosed";
    if (c === 0x3e /* > */ || c === 0x2f /* / */) return;
    const attrAt = k;
    const attr = readName(xml, k);
    if (attr === "") return yield "unclosed";
    k = skipSpace(xml, k + attr.length);
    if (xml.charCodeAt(k) !== 0x3d /* = */) return yield "unclosed";
    k = skipSpace(xml, k + 1);
    const quote = xml[k];
    if (quote !== '"' && quote !== "'") return yield "unclosed";
    const end = xml.indexOf(quote, k + 1);
    yield { name: attr, at: attrAt, valueStart: k + 1, valueEnd: end };
    if (end === -1) return;
    k = end + 1;
  }
}

/** Reads the reference at `at` (`&name;` or `&#…;`): where it ends, or why it is not one. */
function reference(xml: string, at: number): { end: number; refusal: Refusal | null } {
  let k = at + 1;
  const refuse = (reason: string) => ({ end: k, refusal: new Refusal(reason, at) });
  if (xml.charCodeAt(k) === 0x23 /* # */) {
    k++;
    const hex = xml.charCodeAt(k) === 0x78; /* x */
    if (hex) k++;
    let value = 0;
    let digits = 0;
    for (;;) {
      const d = digitValue(xml.charCodeAt(k), hex);
      if (d < 0) break;
      if (value <= 0x10ffff) value = value * (hex ? 16 : 10) + d;
      digits++;
      k++;
    }
    if (digits === 0 || xml.charCodeAt(k) !== 0x3b) return refuse("malformed character reference");
    if (firstInvalidXmlChar(value > 0x10ffff ? "\uffff" : String.fromCodePoint(value)) !== -1) {
      return refuse("character reference to a character XML does not allow");
    }
    return { end: k + 1, refusal: null };
  }
  const name = readName(xml, k);
  if (name === "") return refuse("'&' that does not start an entity reference (write &amp;)");
  k += name.length;
  if (xml.charCodeAt(k) !== 0x3b) return refuse("entity reference without ';' (write &amp; for '&')");
  if (!PREDEFINED_ENTITIES.has(name)) return refuse(`unknown entity &${excerpt(name, 40)};`);
  return { end: k + 1, refusal: null };
}

function badChar(xml: string, at: number): Refusal {
  const code = xml.charCodeAt(at).toString(16).toUpperCase().padStart(4, "0");
  return new Refusal(`character U+${code} is not allowed in XML`, at);
}

/** The XML Name starting at `at`, or "" when none starts there. */
function readName(xml: string, at: number): string {
  if (at < 0) return "";
  let k = at;
  while (k < xml.length) {
    const cp = xml.codePointAt(k)!;
    if (!(k === at ? isNameStartChar(cp) : isNameChar(cp))) break;
    k += cp > 0xffff ? 2 : 1;
  }
  return xml.slice(at, k);
}

/** The name that ends (before optional whitespace) just before `end`, and where it starts. */
function nameEndingAt(xml: string, end: number): { name: string; at: number } {
  let k = end - 1;
  while (k >= 0 && isS(xml.charCodeAt(k))) k--;
  const last = k + 1;
  while (k >= 0 && isNameChar(xml.charCodeAt(k))) k--;
  return { name: xml.slice(k + 1, last), at: k + 1 };
}

function skipSpace(xml: string, from: number): number {
  let k = from;
  if (k === 0 && xml.charCodeAt(0) === 0xfeff) k = 1;
  while (k < xml.length && isS(xml.charCodeAt(k))) k++;
  return k;
}

/** The declared version, read from a bounded slice (the message shows at most 20 characters). */
function declaredVersion(xml: string): string {
  const at = xml.indexOf("version");
  const match = at < 0 ? null : /^\s*=\s*(["'])([^"']*)/.exec(xml.slice(at + 7, at + 64));
  return match?.[2] ?? "";
}

function digitValue(c: number, hex: boolean): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (!hex) return -1;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}
