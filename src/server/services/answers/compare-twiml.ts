/**
 * docs/decisions.md §23: is a second backend's answer the same as the one the call got? Both answers are
 * first checked as the engine checks any answer (start-answer.ts interpretStartAnswer); then their TwiML
 * is compared after normalising what does not change what Twilio does: the XML declaration and BOM
 * (the engine's own addition to TwiML built from actions), comments, whitespace between elements and
 * around text (runs inside text collapse to one space), attribute order, how characters are escaped
 * (entities, character references, CDATA) and `<X/>` against `<X></X>`. The shadow's answer and a
 * replay's use this one rule. Pure: no I/O.
 */
import { SaxesParser } from "saxes";
import type { ShadowOutcome } from "../../../shared/schemas/shadow";

/** One side of a comparison: the TwiML an answer gives Twilio, or null when it could not be used. */
export type ComparedAnswer = { twiml: string | null };

const escapeText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, "&quot;");

/**
 * The canonical form of a TwiML document (see the top of this file), or null when it is not well-formed
 * XML. Two documents normalise to the same string exactly when they differ only in what is listed there.
 */
export function normaliseTwiml(xml: string): string | null {
  const parser = new SaxesParser({ xmlns: false, position: false });
  const out: string[] = [];
  let text = "";
  let failed = false;
  const flushText = () => {
    const t = text.replace(/\s+/g, " ").trim();
    if (t) out.push(escapeText(t));
    text = "";
  };
  parser.on("error", () => {
    failed = true;
  });
  parser.on("opentag", (tag) => {
    flushText();
    const attrs = Object.entries(tag.attributes as Record<string, string>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
      .join("");
    out.push(`<${tag.name}${attrs}>`);
  });
  parser.on("closetag", (tag) => {
    flushText();
    out.push(`</${tag.name}>`);
  });
  parser.on("text", (t) => {
    text += t;
  });
  parser.on("cdata", (t) => {
    text += t;
  });
  try {
    parser.write(xml.replace(/^\ufeff/, "")).close();
  } catch {
    return null;
  }
  return failed ? null : out.join("");
}

/**
 * `failed` when the second answer could not be used; `same` when both give Twilio the same TwiML once
 * normalised; `different` otherwise (the first answer failing and the second not included).
 */
export function compareAnswers(first: ComparedAnswer, second: ComparedAnswer): ShadowOutcome {
  if (second.twiml === null) return "failed";
  if (first.twiml === null) return "different";
  if (first.twiml === second.twiml) return "same";
  const a = normaliseTwiml(first.twiml);
  const b = normaliseTwiml(second.twiml);
  return a !== null && a === b ? "same" : "different";
}
