/**
 * Turns the customer's answer to `call.started` (the POST to `onCallStartUrl`) into the TwiML we
 * hand back to Twilio.
 *
 * Product decision: a 2xx answer decides the call when it is
 *   - XML that is a TwiML `<Response>` document (returned to Twilio as is),
 *   - JSON `{ "twiml": "<Response>…</Response>" }` (likewise), or
 *   - JSON `{ "actions": [ { "say": … }, { "play": … }, { "dial": … }, { "pause": n }, { "hangup": true } ] }`
 *     (built with the Twilio SDK's TwiML builder).
 * Anything else is an error: the caller plays `fallbackTwiml()` and emits `call.error`.
 *
 * This runs inside Twilio's 15-second webhook budget, so it is synchronous, allocation-light and
 * linear in the size of the answer: the XML check is a hand-written single-pass scanner (no
 * regular expressions over customer input, no recursion, no DTDs, so no entity expansion).
 *
 * Pure: no I/O, no logging. Error messages are written for the customer (they end up in the
 * `call.error` event) and never echo more than a short excerpt of their document.
 */
import twilio from "twilio";
import { z } from "zod";
import { E164 } from "../schemas/e164";

export type StartAnswerInput = { status: number; contentType: string | null; body: string };
export type StartAnswerErrorCode =
  | "START_CALLBACK_STATUS" // non-2xx
  | "START_CALLBACK_INVALID"; // 2xx but not a usable answer
export type StartAnswer =
  | { ok: true; twiml: string; form: "xml" | "json-twiml" | "json-actions" }
  | { ok: false; code: StartAnswerErrorCode; message: string };

/** Largest TwiML document accepted from the customer or produced from actions (Twilio's own limit is 64 KB). */
const MAX_DOCUMENT_BYTES = 64 * 1024;
const MAX_ACTIONS = 50;
const MAX_SAY_CHARS = 4096;
const MAX_PLAY_URL_CHARS = 2048;
const FALLBACK_SAY = "We're sorry, this call cannot be completed right now. Goodbye.";

const { VoiceResponse } = twilio.twiml;

/** `<?xml version="1.0" encoding="UTF-8"?><Response><Reject/></Response>` */
export const REJECT_TWIML: string = (() => {
  const response = new VoiceResponse();
  response.reject();
  return response.toString();
})();

const FALLBACK_TWIML: string = (() => {
  const response = new VoiceResponse();
  response.say(FALLBACK_SAY);
  response.hangup();
  return response.toString();
})();

/** A short apology, then hang up. Played when the customer's answer cannot decide the call. */
export function fallbackTwiml(): string {
  return FALLBACK_TWIML;
}

// ---------------------------------------------------------------------------------------------
// The customer's answer
// ---------------------------------------------------------------------------------------------

export function interpretStartAnswer(res: StartAnswerInput): StartAnswer {
  const { status } = res;
  if (!Number.isInteger(status) || status < 200 || status > 299) {
    return { ok: false, code: "START_CALLBACK_STATUS", message: `onCallStartUrl answered HTTP ${status}` };
  }
  const invalid = (message: string): StartAnswer => ({ ok: false, code: "START_CALLBACK_INVALID", message });

  const body = stripLeading(res.body);
  const shift = res.body.length - body.length;
  if (body === "") return invalid(`answer is empty (HTTP ${status}); expected a TwiML <Response> document or JSON`);

  const mediaType = essence(res.contentType);
  const first = body.charCodeAt(0);
  const asXml = mediaType.includes("xml") || (!mediaType.includes("json") && first === LT);
  const asJson = !asXml && (mediaType.includes("json") || first === LBRACE);

  if (asXml) {
    const check = checkResponseDocument(body, res.body, shift);
    if (!check.ok) return invalid(`answer is not a TwiML <Response> document: ${check.reason}`);
    return { ok: true, twiml: body, form: "xml" };
  }
  if (!asJson) {
    const declared = res.contentType === null ? "no Content-Type" : `Content-Type ${excerpt(res.contentType)}`;
    return invalid(`answer is neither a TwiML <Response> document nor JSON (${declared})`);
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (err) {
    return invalid(`answer is not valid JSON: ${excerpt(err instanceof Error ? err.message : String(err), 160)}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return invalid("answer is JSON but not an object; expected { \"twiml\": \"<Response>…</Response>\" } or { \"actions\": [...] }");
  }
  const hasTwiml = Object.hasOwn(parsed, "twiml");
  const hasActions = Object.hasOwn(parsed, "actions");
  if (hasTwiml && hasActions) return invalid("answer is JSON with both `twiml` and `actions`; send only one");
  if (!hasTwiml && !hasActions) return invalid("answer is JSON but has neither `twiml` nor `actions`");

  if (hasTwiml) {
    const twiml = (parsed as { twiml: unknown }).twiml;
    if (typeof twiml !== "string") return invalid("answer's `twiml` must be a string holding a TwiML <Response> document");
    const doc = stripLeading(twiml);
    const check = checkResponseDocument(doc, twiml, twiml.length - doc.length);
    if (!check.ok) return invalid(`answer's \`twiml\` is not a TwiML <Response> document: ${check.reason}`);
    return { ok: true, twiml: doc, form: "json-twiml" };
  }

  const built = twimlFromActions((parsed as { actions: unknown }).actions);
  if (!built.ok) return invalid(built.message);
  return { ok: true, twiml: built.twiml, form: "json-actions" };
}

/** Media type without parameters, lower-cased: `Text/XML; charset=utf-8` → `text/xml`. */
function essence(contentType: string | null): string {
  if (contentType === null) return "";
  const semi = contentType.indexOf(";");
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/**
 * Drops a byte-order mark and leading whitespace. Neither carries meaning, and whitespace before
 * `<?xml …?>` would make the document ill-formed for strict parsers such as Twilio's.
 */
function stripLeading(s: string): string {
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 0xfeff || c === SP || c === TAB || c === LF || c === CR) i++;
    else break;
  }
  return i === 0 ? s : s.slice(i);
}

// ---------------------------------------------------------------------------------------------
// Actions → TwiML
// ---------------------------------------------------------------------------------------------

const ACTION_KINDS = ["say", "play", "dial", "pause", "hangup"] as const;
type ActionKind = (typeof ACTION_KINDS)[number];
const KIND_LIST = ACTION_KINDS.join(", ");

const zSay = z
  .string({ error: `must be a non-empty string of at most ${MAX_SAY_CHARS} characters` })
  .max(MAX_SAY_CHARS, { error: `must be at most ${MAX_SAY_CHARS} characters` })
  .refine((s) => s.trim() !== "", { error: "must be a non-empty string" })
  .refine((s) => firstInvalidXmlChar(s) === -1, { error: "contains a character that is not allowed in XML" });

const zPlay = z
  .string({ error: "must be an absolute http(s) URL" })
  .max(MAX_PLAY_URL_CHARS, { error: `must be at most ${MAX_PLAY_URL_CHARS} characters` })
  .refine(isAbsoluteHttpUrl, { error: "must be an absolute http(s) URL" });

const zDial = z
  .string({ error: "must be an E.164 number (e.g. +14155550123)" })
  .regex(E164, { error: "must be an E.164 number (e.g. +14155550123)" });

const zPause = z
  .number({ error: "must be a whole number of seconds from 1 to 600" })
  .int({ error: "must be a whole number of seconds from 1 to 600" })
  .min(1, { error: "must be a whole number of seconds from 1 to 600" })
  .max(600, { error: "must be a whole number of seconds from 1 to 600" });

const zHangup = z.literal(true, { error: "must be true" });

const ACTION_SCHEMAS = { say: zSay, play: zPlay, dial: zDial, pause: zPause, hangup: zHangup } satisfies Record<
  ActionKind,
  z.ZodType
>;

function isActionKind(key: string): key is ActionKind {
  return Object.hasOwn(ACTION_SCHEMAS, key);
}

function isAbsoluteHttpUrl(s: string): boolean {
  // Exactly what Twilio will fetch: no whitespace or controls the WHATWG parser would silently
  // drop, and a real `scheme://host` (the parser also accepts `https:host`).
  if (/[\u0000-\u0020\u007f-\u009f]/.test(s) || !/^https?:\/\//i.test(s)) return false;
  if (firstInvalidXmlChar(s) !== -1) return false;
  try {
    const url = new URL(s);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
  } catch {
    return false;
  }
}

type Action = { kind: "say" | "play" | "dial"; value: string } | { kind: "pause"; value: number } | { kind: "hangup" };

/**
 * Builds TwiML from the JSON `actions` form. Every item is an object with exactly one key:
 * `say` (text), `play` (http(s) URL), `dial` (E.164), `pause` (1–600 s) or `hangup` (`true`).
 */
export function twimlFromActions(actions: unknown): { ok: true; twiml: string } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  if (!Array.isArray(actions)) return fail("actions must be an array");
  if (actions.length === 0) return fail("actions must not be empty");
  if (actions.length > MAX_ACTIONS) return fail(`actions must have at most ${MAX_ACTIONS} items (got ${actions.length})`);

  const parsed: Action[] = [];
  for (let i = 0; i < actions.length; i++) {
    const item: unknown = actions[i];
    const at = `actions[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return fail(`${at} must be an object with one of ${KIND_LIST}`);
    }
    const keys = Object.keys(item);
    if (keys.length !== 1) {
      return keys.length === 0
        ? fail(`${at} must be an object with one of ${KIND_LIST}`)
        : fail(`${at} must have exactly one key, got ${keys.length} (${excerpt(keys.join(", "))})`);
    }
    const key = keys[0]!;
    if (!isActionKind(key)) return fail(`${at}.${excerpt(key, 40)} is not a known action; use one of ${KIND_LIST}`);
    const result = ACTION_SCHEMAS[key].safeParse((item as Record<string, unknown>)[key]);
    if (!result.success) return fail(`${at}.${key} ${result.error.issues[0]?.message ?? "is invalid"}`);
    const value = result.data;
    if (key === "hangup") parsed.push({ kind: "hangup" });
    else if (key === "pause") parsed.push({ kind: "pause", value: value as number });
    else parsed.push({ kind: key, value: value as string });
  }

  let twiml: string;
  try {
    const response = new VoiceResponse();
    for (const action of parsed) {
      switch (action.kind) {
        case "say":
          response.say(action.value);
          break;
        case "play":
          response.play(action.value);
          break;
        case "dial":
          response.dial(action.value);
          break;
        case "pause":
          response.pause({ length: action.value });
          break;
        case "hangup":
          response.hangup();
          break;
      }
    }
    twiml = response.toString();
  } catch (err) {
    // Unreachable with the checks above (the builder throws on characters XML cannot carry).
    return fail(`actions could not be turned into TwiML: ${excerpt(err instanceof Error ? err.message : String(err), 120)}`);
  }
  if (utf8Length(twiml) > MAX_DOCUMENT_BYTES) return fail(`actions produce TwiML larger than ${MAX_DOCUMENT_BYTES / 1024} KiB`);
  return { ok: true, twiml };
}

// ---------------------------------------------------------------------------------------------
// XML well-formedness + `<Response>` root
// ---------------------------------------------------------------------------------------------

/**
 * True only for a well-formed XML document (at most 64 KiB) whose single root element is
 * `<Response>`. Allowed: an optional leading BOM, an optional `<?xml …?>` declaration (UTF-8),
 * comments, whitespace, attributes, nested elements, CDATA, the five predefined entities and
 * character references. Refused: DTDs, processing instructions, any other root, and anything
 * ill-formed. TwiML verb names are not checked (Twilio does that).
 */
export function isTwimlResponseDocument(xml: string): boolean {
  return checkResponseDocument(xml).ok;
}

type DocumentCheck = { ok: true } | { ok: false; reason: string };

class XmlError extends Error {
  readonly reason: string;
  readonly at: number;

  constructor(reason: string, at: number) {
    super(reason);
    this.reason = reason;
    this.at = at;
  }
}

/** `source`/`shift`: where `xml` sits in what the customer sent, so positions in messages match their text. */
function checkResponseDocument(xml: string, source = xml, shift = 0): DocumentCheck {
  // UTF-8 never takes fewer bytes than UTF-16 code units, so the cheap test goes first.
  if (xml.length > MAX_DOCUMENT_BYTES || utf8Length(xml) > MAX_DOCUMENT_BYTES) {
    return { ok: false, reason: `document is larger than ${MAX_DOCUMENT_BYTES / 1024} KiB` };
  }
  try {
    new Scanner(xml).document();
    return { ok: true };
  } catch (err) {
    if (!(err instanceof XmlError)) throw err;
    return { ok: false, reason: `${err.reason} (${position(source, err.at + shift)})` };
  }
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const QUOT = 0x22;
const HASH = 0x23;
const AMP = 0x26;
const APOS = 0x27;
const SLASH = 0x2f;
const SEMI = 0x3b;
const LT = 0x3c;
const EQ = 0x3d;
const GT = 0x3e;
const QUESTION = 0x3f;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;

const PREDEFINED_ENTITIES = new Set(["amp", "lt", "gt", "quot", "apos"]);

/**
 * Single forward pass over the document; every loop advances `i`, and the only searches
 * (`indexOf` for the end of a comment or CDATA section) start at `i` and move `i` past their
 * result, so the whole scan is O(n). Open elements live on an explicit stack (no recursion).
 */
class Scanner {
  private readonly s: string;
  private readonly n: number;
  private i = 0;

  constructor(s: string) {
    this.s = s;
    this.n = s.length;
  }

  document(): void {
    const { s } = this;
    if (s.charCodeAt(0) === 0xfeff) this.i = 1;
    if (s.startsWith("<?xml", this.i) && isSpace(s.charCodeAt(this.i + 5))) this.xmlDeclaration();

    // Prolog: whitespace and comments, then exactly one root element.
    for (;;) {
      this.skipSpace();
      if (this.i >= this.n) throw this.error("no root element", this.i);
      if (s.startsWith("<!--", this.i)) this.comment();
      else if (s.charCodeAt(this.i) === LT) break;
      else throw this.error("text before the root element", this.i);
    }
    this.markupSafety();
    const rootAt = this.i;
    const root = this.startTag();
    if (root.name !== "Response") throw this.error(`root element is <${excerpt(root.name, 40)}>, expected <Response>`, rootAt);
    if (!root.selfClosing) this.content(root.name);

    // Epilog: whitespace and comments only.
    for (;;) {
      this.skipSpace();
      if (this.i >= this.n) return;
      if (s.startsWith("<!--", this.i)) this.comment();
      else if (s.charCodeAt(this.i) === LT && isNameStart(s.codePointAt(this.i + 1) ?? -1)) {
        throw this.error("a second root element after </Response>", this.i);
      } else {
        this.markupSafety();
        throw this.error("content after the root element", this.i);
      }
    }
  }

  /** Refuses the `<!…` and `<?…` constructs that are never allowed where markup is expected. */
  private markupSafety(): void {
    const { s, i } = this;
    if (s.charCodeAt(i) !== LT) return;
    const next = s.charCodeAt(i + 1);
    if (next === QUESTION) {
      if (s.startsWith("<?xml", i) && isSpace(s.charCodeAt(i + 5))) {
        throw this.error("the XML declaration must come first in the document", i);
      }
      throw this.error("processing instructions are not allowed", i);
    }
    if (s.startsWith("<!DOCTYPE", i)) throw this.error("DOCTYPE declarations are not allowed", i);
    if (s.startsWith("<![CDATA[", i)) throw this.error("CDATA outside the root element", i);
    if (next === 0x21 /* ! */) throw this.error("unexpected <! markup", i);
  }

  /** Element content up to and including the end tag of `rootName`. */
  private content(rootName: string): void {
    const { s, n } = this;
    const open: string[] = [rootName];
    while (open.length > 0) {
      // Character data, checked char by char for references, `]]>` and characters XML forbids.
      let c = 0;
      while (this.i < n) {
        c = s.charCodeAt(this.i);
        if (c === LT) break;
        if (c === AMP) this.reference();
        else if (c === RBRACKET && s.startsWith("]]>", this.i)) throw this.error("']]>' is not allowed in text", this.i);
        else this.char();
      }
      if (this.i >= n) throw this.error(`unclosed element <${excerpt(open[open.length - 1]!, 40)}>`, n);

      const at = this.i;
      const next = s.charCodeAt(at + 1);
      if (next === SLASH) {
        const name = this.endTag();
        const expected = open.pop()!;
        if (name !== expected) {
          throw this.error(`mismatched end tag </${excerpt(name, 40)}>, expected </${excerpt(expected, 40)}>`, at);
        }
      } else if (s.startsWith("<!--", at)) {
        this.comment();
      } else if (s.startsWith("<![CDATA[", at)) {
        const end = s.indexOf("]]>", at + 9);
        if (end === -1) throw this.error("unclosed CDATA section", at);
        this.i = end + 3;
      } else if (next === QUESTION) {
        throw this.error("processing instructions are not allowed", at);
      } else if (s.startsWith("<!DOCTYPE", at)) {
        throw this.error("DOCTYPE declarations are not allowed", at);
      } else if (next === 0x21 /* ! */) {
        throw this.error("unexpected <! markup", at);
      } else {
        const tag = this.startTag();
        if (!tag.selfClosing) open.push(tag.name);
      }
    }
  }

  /** `<Name (S Attr)* S? /?>`; attribute values are checked, duplicates refused. */
  private startTag(): { name: string; selfClosing: boolean } {
    const { s, n } = this;
    const at = this.i;
    this.i++; // <
    if (!isNameStart(s.codePointAt(this.i) ?? -1)) throw this.error("'<' that does not start a tag", at);
    const name = this.name();
    let seen: Set<string> | undefined;
    for (;;) {
      const spaced = this.skipSpace();
      if (this.i >= n) throw this.error(`unclosed start tag <${excerpt(name, 40)}`, at);
      const c = s.charCodeAt(this.i);
      if (c === GT) {
        this.i++;
        return { name, selfClosing: false };
      }
      if (c === SLASH) {
        if (s.charCodeAt(this.i + 1) !== GT) throw this.error("'/' not followed by '>' in a start tag", this.i);
        this.i += 2;
        return { name, selfClosing: true };
      }
      if (!spaced || !isNameStart(s.codePointAt(this.i) ?? -1)) {
        throw this.error(`malformed attribute in <${excerpt(name, 40)}>`, this.i);
      }
      const attrAt = this.i;
      const attr = this.name();
      this.skipSpace();
      if (s.charCodeAt(this.i) !== EQ) throw this.error(`attribute ${excerpt(attr, 40)} has no '=' value`, attrAt);
      this.i++;
      this.skipSpace();
      const quote = s.charCodeAt(this.i);
      if (quote !== QUOT && quote !== APOS) throw this.error(`attribute ${excerpt(attr, 40)} value is not quoted`, attrAt);
      this.i++;
      for (;;) {
        if (this.i >= n) throw this.error(`unterminated value of attribute ${excerpt(attr, 40)}`, attrAt);
        const v = s.charCodeAt(this.i);
        if (v === quote) break;
        if (v === LT) throw this.error("'<' inside an attribute value", this.i);
        if (v === AMP) this.reference();
        else this.char();
      }
      this.i++; // closing quote
      seen ??= new Set();
      if (seen.has(attr)) throw this.error(`duplicate attribute ${excerpt(attr, 40)}`, attrAt);
      seen.add(attr);
    }
  }

  /** `</Name S?>` → the name. */
  private endTag(): string {
    const { s } = this;
    const at = this.i;
    this.i += 2; // </
    if (!isNameStart(s.codePointAt(this.i) ?? -1)) throw this.error("malformed end tag", at);
    const name = this.name();
    this.skipSpace();
    if (s.charCodeAt(this.i) !== GT) throw this.error(`malformed end tag </${excerpt(name, 40)}`, at);
    this.i++;
    return name;
  }

  /** `<!-- … -->` with no `--` inside. */
  private comment(): void {
    const at = this.i;
    const start = at + 4;
    const dashes = this.s.indexOf("--", start);
    if (dashes === -1) throw this.error("unclosed comment", at);
    if (this.s.charCodeAt(dashes + 2) !== GT) throw this.error("'--' inside a comment", dashes);
    this.checkChars(start, dashes);
    this.i = dashes + 3;
  }

  /** `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#NNN;` `&#xHHH;` (to a character XML allows). */
  private reference(): void {
    const { s, n } = this;
    const at = this.i;
    this.i++; // &
    if (s.charCodeAt(this.i) === HASH) {
      this.i++;
      const hex = s.charCodeAt(this.i) === 0x78; /* x */
      if (hex) this.i++;
      let value = 0;
      let digits = 0;
      while (this.i < n) {
        const d = digitValue(s.charCodeAt(this.i), hex);
        if (d < 0) break;
        if (value <= 0x10ffff) value = value * (hex ? 16 : 10) + d;
        digits++;
        this.i++;
      }
      if (digits === 0 || s.charCodeAt(this.i) !== SEMI) throw this.error("malformed character reference", at);
      if (!isXmlCodePoint(value)) throw this.error("character reference to a character XML does not allow", at);
      this.i++;
      return;
    }
    if (!isNameStart(s.codePointAt(this.i) ?? -1)) throw this.error("'&' that does not start an entity reference (write &amp;)", at);
    const name = this.name();
    if (s.charCodeAt(this.i) !== SEMI) throw this.error("entity reference without ';' (write &amp; for '&')", at);
    if (!PREDEFINED_ENTITIES.has(name)) throw this.error(`unknown entity &${excerpt(name, 40)};`, at);
    this.i++;
  }

  /** `<?xml version="1.x" (encoding="UTF-8")? (standalone="yes|no")? S? ?>` at the very start. */
  private xmlDeclaration(): void {
    const { s } = this;
    const at = this.i;
    this.i += 5; // <?xml
    this.skipSpace();
    if (!s.startsWith("version", this.i)) throw this.error("XML declaration must start with version", this.i);
    const version = this.pseudoAttribute("version", at);
    if (!isVersionNum(version)) throw this.error(`unsupported XML version "${excerpt(version, 20)}"`, at);
    let spaced = this.skipSpace();
    if (spaced && s.startsWith("encoding", this.i)) {
      const encoding = this.pseudoAttribute("encoding", at);
      // We hand the document on as UTF-8 text; any other label would make Twilio mis-decode it.
      if (encoding.toLowerCase() !== "utf-8") {
        throw this.error(`XML declaration says encoding="${excerpt(encoding, 20)}"; only UTF-8 is supported`, at);
      }
      spaced = this.skipSpace();
    }
    if (spaced && s.startsWith("standalone", this.i)) {
      const standalone = this.pseudoAttribute("standalone", at);
      if (standalone !== "yes" && standalone !== "no") throw this.error('standalone must be "yes" or "no"', at);
      this.skipSpace();
    }
    if (!s.startsWith("?>", this.i)) throw this.error("malformed XML declaration", this.i);
    this.i += 2;
  }

  /** `name S? = S? ("…" | '…')` inside the XML declaration → the value. */
  private pseudoAttribute(name: string, declAt: number): string {
    const { s } = this;
    this.i += name.length;
    this.skipSpace();
    if (s.charCodeAt(this.i) !== EQ) throw this.error("malformed XML declaration", this.i);
    this.i++;
    this.skipSpace();
    const quote = s.charCodeAt(this.i);
    if (quote !== QUOT && quote !== APOS) throw this.error("malformed XML declaration", this.i);
    const end = s.indexOf(quote === QUOT ? '"' : "'", this.i + 1);
    if (end === -1) throw this.error("unclosed XML declaration", declAt);
    const value = s.slice(this.i + 1, end);
    this.i = end + 1;
    return value;
  }

  /** Consumes a Name (the caller has checked its first character). */
  private name(): string {
    const { s, n } = this;
    const start = this.i;
    while (this.i < n) {
      const cp = s.codePointAt(this.i)!;
      if (!isNameChar(cp)) break;
      this.i += cp > 0xffff ? 2 : 1;
    }
    return s.slice(start, this.i);
  }

  /** Consumes one character (or surrogate pair) that must be allowed in XML. */
  private char(): void {
    const { s, i } = this;
    const c = s.charCodeAt(i);
    if ((c >= SP && c < 0xd800) || c === LF || c === TAB || c === CR || (c >= 0xe000 && c <= 0xfffd)) {
      this.i = i + 1;
      return;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.i = i + 2;
        return;
      }
    }
    this.checkChars(i, i + 1); // throws
  }

  /** Refuses characters XML cannot carry in s[from, to) (a trailing high surrogate may pair past `to`). */
  private checkChars(from: number, to: number): void {
    const bad = firstInvalidXmlChar(this.s, from, to);
    if (bad !== -1) {
      const code = this.s.charCodeAt(bad).toString(16).toUpperCase().padStart(4, "0");
      throw this.error(`character U+${code} is not allowed in XML`, bad);
    }
  }

  /** Skips S; true when at least one whitespace character was consumed. */
  private skipSpace(): boolean {
    const start = this.i;
    while (this.i < this.n && isSpace(this.s.charCodeAt(this.i))) this.i++;
    return this.i > start;
  }

  private error(reason: string, at: number): XmlError {
    return new XmlError(reason, at);
  }
}

function isSpace(c: number): boolean {
  return c === SP || c === LF || c === TAB || c === CR;
}

function isNameStart(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a) || cp === 0x5f || cp === 0x3a;
  return (
    (cp >= 0xc0 && cp <= 0xd6) ||
    (cp >= 0xd8 && cp <= 0xf6) ||
    (cp >= 0xf8 && cp <= 0x2ff) ||
    (cp >= 0x370 && cp <= 0x37d) ||
    (cp >= 0x37f && cp <= 0x1fff) ||
    (cp >= 0x200c && cp <= 0x200d) ||
    (cp >= 0x2070 && cp <= 0x218f) ||
    (cp >= 0x2c00 && cp <= 0x2fef) ||
    (cp >= 0x3001 && cp <= 0xd7ff) ||
    (cp >= 0xf900 && cp <= 0xfdcf) ||
    (cp >= 0xfdf0 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0xeffff)
  );
}

function isNameChar(cp: number): boolean {
  if (cp < 0x80) {
    return (
      (cp >= 0x61 && cp <= 0x7a) ||
      (cp >= 0x41 && cp <= 0x5a) ||
      (cp >= 0x30 && cp <= 0x39) ||
      cp === 0x5f ||
      cp === 0x3a ||
      cp === 0x2d ||
      cp === 0x2e
    );
  }
  return cp === 0xb7 || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x203f && cp <= 0x2040) || isNameStart(cp);
}

function isVersionNum(v: string): boolean {
  if (v.length < 3 || !v.startsWith("1.")) return false;
  for (let k = 2; k < v.length; k++) {
    const c = v.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

function digitValue(c: number, hex: boolean): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (!hex) return -1;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** XML 1.0 `Char`: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. */
function isXmlCodePoint(cp: number): boolean {
  return (
    cp === TAB ||
    cp === LF ||
    cp === CR ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** Index of the first code unit in s[from, to) that is not part of an allowed XML character, or -1. */
function firstInvalidXmlChar(s: string, from = 0, to = s.length): number {
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c >= SP && c < 0xd800) continue;
    if (c === TAB || c === LF || c === CR) continue;
    if (c >= 0xd800 && c <= 0xdbff) {
      const low = s.charCodeAt(k + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        k++;
        continue;
      }
      return k;
    }
    if (c >= 0xe000 && c <= 0xfffd) continue;
    return k;
  }
  return -1;
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** "line L, column C" for a code-unit offset (computed only when reporting an error). */
function position(s: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(at, s.length);
  for (let k = 0; k < end; k++) {
    if (s.charCodeAt(k) === LF) {
      line++;
      lineStart = k + 1;
    }
  }
  return `line ${line}, column ${end - lineStart + 1}`;
}

/** At most `max` characters of customer-controlled text for a message. */
function excerpt(s: string, max = 80): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
