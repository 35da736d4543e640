/**
 * The one actions vocabulary (docs/decisions.md §12, §22) for answers, stored fallbacks, last resorts
 * and live commands, checked item by item and built into TwiML with the Twilio SDK's builder.
 * Messages name the item (`actions[2].dial …`) so the customer can fix it.
 *
 *   { "say": "text", "voice"?: "Polly.Joanna", "language"?: "en-US" }
 *   { "play": "https://…" }
 *   { "pause": 2 }
 *   { "dial": "+14155550123" } | { "dial": "sip:alice@example.com" } | { "dial": { "to", "callerId"?, "timeout"? } }
 *   { "gather": { "input"?, "numDigits"?, "timeout"?, "say"?, "actionUrl" } }
 *   { "record": { "maxLength"?, "transcribe"? } }
 *   { "hangup": true }
 *   { "reject": { "reason"?: "busy" | "rejected" } }
 */
import twilio from "twilio";
import { z } from "zod";
import { excerpt } from "./excerpt";
import { exceedsTwimlSize, MAX_TWIML_BYTES } from "./twiml-size";
import { firstInvalidXmlChar } from "./xml-chars";
import { E164 } from "../../../shared/schemas/e164";
import { checkCallbackUrl, type CallbackUrlPolicyOptions } from "../../../shared/url-policy";
import { serverCallbackPolicy } from "../../webhooks/http/server-callback-policy";
import { ACTIONS_MAX_ITEMS } from "../../../shared/schemas/bounds";

const MAX_ACTIONS = ACTIONS_MAX_ITEMS;
const MAX_SAY_CHARS = 4096;
const MAX_PLAY_URL_CHARS = 2048;

const { VoiceResponse } = twilio.twiml;

const ACTION_KINDS = ["say", "play", "pause", "dial", "gather", "record", "hangup", "reject"] as const;
type ActionKind = (typeof ACTION_KINDS)[number];
const KIND_LIST = ACTION_KINDS.join(", ");

/** Keys an action may carry beside its own: only `say` takes options at its side (§22). */
const SIDE_KEYS: Partial<Record<ActionKind, readonly string[]>> = { say: ["voice", "language"] };

const zText = z
  .string({ error: `must be a non-empty string of at most ${MAX_SAY_CHARS} characters` })
  .max(MAX_SAY_CHARS, { error: `must be at most ${MAX_SAY_CHARS} characters` })
  .refine((s) => s.trim() !== "", { error: "must be a non-empty string" })
  .refine((s) => firstInvalidXmlChar(s) === -1, { error: "contains a character that is not allowed in XML" });

const zVoice = z
  .string({ error: "must be a voice name such as alice, man, woman or Polly.Joanna" })
  .regex(/^[A-Za-z][A-Za-z0-9._-]{0,63}$/, { error: "must be a voice name such as alice, man, woman or Polly.Joanna" });

const zLanguage = z
  .string({ error: "must be a language tag such as en-US" })
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/, { error: "must be a language tag such as en-US" });

const zPlay = z
  .string({ error: "must be an absolute http(s) URL" })
  .max(MAX_PLAY_URL_CHARS, { error: `must be at most ${MAX_PLAY_URL_CHARS} characters` })
  .refine(isAbsoluteHttpUrl, { error: "must be an absolute http(s) URL" });

const seconds = (min: number, max: number) => {
  const error = `must be a whole number of seconds from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

const E164_OR_SIP = "must be an E.164 number (e.g. +14155550123) or a sip: URI (e.g. sip:alice@example.com)";
// A SIP URI Twilio's <Sip> takes: user@host, optional port and parameters, nothing XML or whitespace cannot carry.
const SIP_URI = /^sips?:[A-Za-z0-9._~!$&'()*+,;=%-]+@[A-Za-z0-9.-]+(:\d{1,5})?(;[A-Za-z0-9._~!$&'()*+,=%:-]+)*$/i;
const zDialTarget = z
  .string({ error: E164_OR_SIP })
  .max(512, { error: E164_OR_SIP })
  .refine((s) => E164.test(s) || SIP_URI.test(s), { error: E164_OR_SIP });

const zDial = z.union(
  [
    zDialTarget,
    z.strictObject(
      {
        to: zDialTarget,
        callerId: z
          .string({ error: "callerId must be an E.164 number" })
          .regex(E164, { error: "callerId must be an E.164 number" })
          .optional(),
        timeout: seconds(5, 600).optional(),
      },
      { error: "must be a number, a sip: URI, or { to, callerId?, timeout? }" },
    ),
  ],
  { error: `${E164_OR_SIP}, or { to, callerId?, timeout? }` },
);

const zPause = seconds(1, 600);
const zHangup = z.literal(true, { error: "must be true" });

const zGather = (policy: () => CallbackUrlPolicyOptions) =>
  z.strictObject(
    {
      input: z
        .enum(["dtmf", "speech", "dtmf speech"], { error: 'input must be "dtmf", "speech" or "dtmf speech"' })
        .optional(),
      numDigits: z
        .number({ error: "numDigits must be a whole number from 1 to 99" })
        .int({ error: "numDigits must be a whole number from 1 to 99" })
        .min(1, { error: "numDigits must be a whole number from 1 to 99" })
        .max(99, { error: "numDigits must be a whole number from 1 to 99" })
        .optional(),
      timeout: seconds(1, 60).optional(),
      say: zText.optional(),
      actionUrl: z
        .string({ error: "actionUrl is required: where Twilio posts what the caller entered" })
        .superRefine((url, ctx) => {
          const check = checkCallbackUrl(url, policy());
          if (!check.ok) ctx.addIssue({ code: "custom", message: `actionUrl ${check.reason}` });
        }),
    },
    { error: "must be { input?, numDigits?, timeout?, say?, actionUrl }" },
  );

const zRecord = z.strictObject(
  {
    maxLength: seconds(1, 14_400).optional(),
    transcribe: z.boolean({ error: "transcribe must be true or false" }).optional(),
  },
  { error: "must be { maxLength?, transcribe? }" },
);

const zReject = z.strictObject(
  { reason: z.enum(["busy", "rejected"], { error: 'reason must be "busy" or "rejected"' }).optional() },
  { error: 'must be { reason?: "busy" | "rejected" }' },
);

type Action =
  | { kind: "say"; text: string; voice?: string; language?: string }
  | { kind: "play"; url: string }
  | { kind: "pause"; seconds: number }
  | { kind: "dial"; to: string; callerId?: string; timeout?: number }
  | {
      kind: "gather";
      input?: "dtmf" | "speech" | "dtmf speech";
      numDigits?: number;
      timeout?: number;
      say?: string;
      actionUrl: string;
    }
  | { kind: "record"; maxLength?: number; transcribe?: boolean }
  | { kind: "hangup" }
  | { kind: "reject"; reason?: "busy" | "rejected" };

function isActionKind(key: string): key is ActionKind {
  return (ACTION_KINDS as readonly string[]).includes(key);
}

function isAbsoluteHttpUrl(s: string): boolean {
  // Exactly what Twilio will fetch: no whitespace or controls the WHATWG parser would silently
  // drop, and a real `scheme://host` (the parser also accepts `https:host`).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's job
  if (/[\u0000-\u0020\u007f-\u009f]/.test(s) || !/^https?:\/\//i.test(s)) return false;
  if (firstInvalidXmlChar(s) !== -1) return false;
  try {
    const url = new URL(s);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** `key`: the failing key when it is not the action's own (`voice` beside `say`). */
type Parsed = { ok: true; action: Action } | { ok: false; message: string; key?: string };

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "is invalid";
  // Unknown keys of an object action: name them, the generic message would not.
  if (issue.code === "unrecognized_keys") return `has unknown key ${excerpt(issue.keys.join(", "), 60)}`;
  const where = issue.path.filter((p) => typeof p === "string");
  // Messages of nested fields already name the field ("actionUrl …", "callerId …").
  return where.length > 0 && !issue.message.startsWith(String(where[where.length - 1]))
    ? `${where.join(".")} ${issue.message}`
    : issue.message;
}

function parseAction(kind: ActionKind, item: Record<string, unknown>, policy: () => CallbackUrlPolicyOptions): Parsed {
  const value = item[kind];
  const check = <T>(schema: z.ZodType<T>, v: unknown): { ok: true; data: T } | { ok: false; message: string } => {
    const r = schema.safeParse(v);
    return r.success ? { ok: true, data: r.data } : { ok: false, message: firstIssue(r.error) };
  };
  switch (kind) {
    case "say": {
      const text = check(zText, value);
      if (!text.ok) return text;
      const voice = item.voice === undefined ? undefined : check(zVoice, item.voice);
      if (voice && !voice.ok) return { ok: false, message: voice.message, key: "voice" };
      const language = item.language === undefined ? undefined : check(zLanguage, item.language);
      if (language && !language.ok) return { ok: false, message: language.message, key: "language" };
      return {
        ok: true,
        action: {
          kind: "say",
          text: text.data,
          ...(voice?.ok && { voice: voice.data }),
          ...(language?.ok && { language: language.data }),
        },
      };
    }
    case "play": {
      const r = check(zPlay, value);
      return r.ok ? { ok: true, action: { kind: "play", url: r.data } } : r;
    }
    case "pause": {
      const r = check(zPause, value);
      return r.ok ? { ok: true, action: { kind: "pause", seconds: r.data } } : r;
    }
    case "dial": {
      const r = check(zDial, value);
      if (!r.ok) return r;
      return {
        ok: true,
        action: typeof r.data === "string" ? { kind: "dial", to: r.data } : { kind: "dial", ...r.data },
      };
    }
    case "gather": {
      const r = check(zGather(policy), value);
      return r.ok ? { ok: true, action: { kind: "gather", ...r.data, actionUrl: r.data.actionUrl.trim() } } : r;
    }
    case "record": {
      const r = check(zRecord, value);
      return r.ok ? { ok: true, action: { kind: "record", ...r.data } } : r;
    }
    case "hangup": {
      const r = check(zHangup, value);
      return r.ok ? { ok: true, action: { kind: "hangup" } } : r;
    }
    case "reject": {
      const r = check(zReject, value);
      return r.ok ? { ok: true, action: { kind: "reject", ...r.data } } : r;
    }
  }
}

function serverPolicy(): CallbackUrlPolicyOptions {
  try {
    return serverCallbackPolicy();
  } catch {
    // No server configuration (a script, a unit test): the production policy.
    return { allowPrivate: false };
  }
}

/**
 * Builds TwiML from an `actions` array (an answer's, a stored fallback's, a last resort's, a live
 * command's). Every item is an object with one action key (and, for `say`, optional `voice` and
 * `language` beside it). `gather.actionUrl` follows the callback URL policy: the server's unless
 * `opts.urlPolicy` says otherwise.
 */
export function twimlFromActions(
  actions: unknown,
  opts: { urlPolicy?: CallbackUrlPolicyOptions } = {},
): { ok: true; twiml: string } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  if (!Array.isArray(actions)) return fail("actions must be an array");
  if (actions.length === 0) return fail("actions must not be empty");
  if (actions.length > MAX_ACTIONS)
    return fail(`actions must have at most ${MAX_ACTIONS} items (got ${actions.length})`);
  let policy: CallbackUrlPolicyOptions | undefined = opts.urlPolicy;
  const policyOf = () => (policy ??= serverPolicy());

  const parsed: Action[] = [];
  for (let i = 0; i < actions.length; i++) {
    const item: unknown = actions[i];
    const at = `actions[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return fail(`${at} must be an object with one of ${KIND_LIST}`);
    }
    const keys = Object.keys(item);
    const kinds = keys.filter(isActionKind);
    if (kinds.length === 0) {
      if (keys.length === 0) return fail(`${at} must be an object with one of ${KIND_LIST}`);
      return fail(`${at}.${excerpt(keys[0]!, 40)} is not a known action; use one of ${KIND_LIST}`);
    }
    if (kinds.length > 1) return fail(`${at} must have exactly one action, got ${kinds.length} (${kinds.join(", ")})`);
    const kind = kinds[0]!;
    const allowed = SIDE_KEYS[kind] ?? [];
    const extra = keys.find((k) => k !== kind && !allowed.includes(k));
    if (extra !== undefined) {
      return fail(
        allowed.length
          ? `${at}.${excerpt(extra, 40)} is not an option of ${kind}; ${kind} takes ${allowed.join(" and ")}`
          : `${at} must have exactly one key, got ${keys.length} (${excerpt(keys.join(", "))})`,
      );
    }
    const result = parseAction(kind, item as Record<string, unknown>, policyOf);
    if (!result.ok) return fail(`${at}.${result.key ?? kind} ${result.message}`);
    parsed.push(result.action);
  }

  let twiml: string;
  try {
    twiml = build(parsed);
  } catch (err) {
    // Unreachable with the checks above (the builder throws on characters XML cannot carry).
    return fail(
      `actions could not be turned into TwiML: ${excerpt(err instanceof Error ? err.message : String(err), 120)}`,
    );
  }
  if (exceedsTwimlSize(twiml)) return fail(`actions produce TwiML larger than ${MAX_TWIML_BYTES / 1024} KiB`);
  return { ok: true, twiml };
}

type SayAttributes = Parameters<InstanceType<typeof VoiceResponse>["say"]>[0];

function build(actions: Action[]): string {
  const response = new VoiceResponse();
  for (const action of actions) {
    switch (action.kind) {
      case "say": {
        const attrs = {
          ...(action.voice && { voice: action.voice }),
          ...(action.language && { language: action.language }),
        } as SayAttributes;
        if (action.voice || action.language) response.say(attrs, action.text);
        else response.say(action.text);
        break;
      }
      case "play":
        response.play(action.url);
        break;
      case "pause":
        response.pause({ length: action.seconds });
        break;
      case "dial": {
        const attrs = {
          ...(action.callerId && { callerId: action.callerId }),
          ...(action.timeout !== undefined && { timeout: action.timeout }),
        };
        if (/^sips?:/i.test(action.to)) response.dial(attrs).sip(action.to);
        else if (Object.keys(attrs).length) response.dial(attrs).number(action.to);
        else response.dial(action.to);
        break;
      }
      case "gather": {
        const gather = response.gather({
          action: action.actionUrl,
          method: "POST",
          ...(action.input && { input: action.input.split(" ") as ("dtmf" | "speech")[] }),
          ...(action.numDigits !== undefined && { numDigits: action.numDigits }),
          ...(action.timeout !== undefined && { timeout: action.timeout }),
        });
        if (action.say) gather.say(action.say);
        break;
      }
      case "record":
        response.record({
          ...(action.maxLength !== undefined && { maxLength: action.maxLength }),
          ...(action.transcribe !== undefined && { transcribe: action.transcribe }),
        });
        break;
      case "hangup":
        response.hangup();
        break;
      case "reject":
        response.reject(action.reason ? { reason: action.reason } : {});
        break;
    }
  }
  return response.toString();
}
