/**
 * Reads the customer's answer to `call.started` far enough to tell which of the three forms it is
 * (TwiML XML, JSON `{ twiml }`, JSON `{ actions }`), or why it is none of them. Checking the TwiML
 * and building it from actions are the callers' next steps.
 */
import { excerpt } from "./excerpt";

export type StartAnswerInput = { status: number; contentType: string | null; body: string };
export type StartAnswerErrorCode =
  | "START_CALLBACK_STATUS" // non-2xx
  | "START_CALLBACK_INVALID"; // 2xx but not a usable answer

/** `source` and `shift` say where `doc` sits in what the customer sent, so error positions match their text. */
export type AnswerForm =
  | { form: "xml"; doc: string; source: string; shift: number }
  | { form: "json-twiml"; doc: string; source: string; shift: number }
  | { form: "json-actions"; actions: unknown }
  | { form: "refused"; code: StartAnswerErrorCode; message: string };

const LT = 0x3c;
const LBRACE = 0x7b;

export function interpretAnswer(res: StartAnswerInput): AnswerForm {
  const { status } = res;
  if (!Number.isInteger(status) || status < 200 || status > 299) {
    return { form: "refused", code: "START_CALLBACK_STATUS", message: `onCallStartUrl answered HTTP ${status}` };
  }
  const invalid = (message: string): AnswerForm => ({ form: "refused", code: "START_CALLBACK_INVALID", message });

  const body = stripLeading(res.body);
  if (body === "") return invalid(`answer is empty (HTTP ${status}); expected a TwiML <Response> document or JSON`);

  const mediaType = essence(res.contentType);
  const first = body.charCodeAt(0);
  const asXml = mediaType.includes("xml") || (!mediaType.includes("json") && first === LT);
  const asJson = !asXml && (mediaType.includes("json") || first === LBRACE);

  if (asXml) return { form: "xml", doc: body, source: res.body, shift: res.body.length - body.length };
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
    return invalid(
      'answer is JSON but not an object; expected { "twiml": "<Response>…</Response>" } or { "actions": [...] }',
    );
  }
  const hasTwiml = Object.hasOwn(parsed, "twiml");
  const hasActions = Object.hasOwn(parsed, "actions");
  if (hasTwiml && hasActions) return invalid("answer is JSON with both `twiml` and `actions`; send only one");
  if (!hasTwiml && !hasActions) return invalid("answer is JSON but has neither `twiml` nor `actions`");

  if (hasActions) return { form: "json-actions", actions: (parsed as { actions: unknown }).actions };
  const twiml = (parsed as { twiml: unknown }).twiml;
  if (typeof twiml !== "string")
    return invalid("answer's `twiml` must be a string holding a TwiML <Response> document");
  const doc = stripLeading(twiml);
  return { form: "json-twiml", doc, source: twiml, shift: twiml.length - doc.length };
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
    if (c === 0xfeff || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else break;
  }
  return i === 0 ? s : s.slice(i);
}
