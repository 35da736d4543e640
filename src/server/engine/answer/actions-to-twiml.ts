/**
 * The JSON `actions` form of the customer's answer, checked item by item and built into TwiML with
 * the Twilio SDK's builder. Messages name the item (`actions[2].dial …`) so the customer can fix it.
 */
import twilio from "twilio";
import { z } from "zod";
import { excerpt } from "./excerpt";
import { exceedsTwimlSize, MAX_TWIML_BYTES } from "./twiml-size";
import { firstInvalidXmlChar } from "./xml-chars";
import { E164 } from "../../schemas/e164";

const MAX_ACTIONS = 50;
const MAX_SAY_CHARS = 4096;
const MAX_PLAY_URL_CHARS = 2048;

const { VoiceResponse } = twilio.twiml;

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

type Action = { kind: "say" | "play" | "dial"; value: string } | { kind: "pause"; value: number } | { kind: "hangup" };

/**
 * Builds TwiML from the JSON `actions` form. Every item is an object with exactly one key:
 * `say` (text), `play` (http(s) URL), `dial` (E.164), `pause` (1–600 s) or `hangup` (`true`).
 */
export function twimlFromActions(actions: unknown): { ok: true; twiml: string } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  if (!Array.isArray(actions)) return fail("actions must be an array");
  if (actions.length === 0) return fail("actions must not be empty");
  if (actions.length > MAX_ACTIONS)
    return fail(`actions must have at most ${MAX_ACTIONS} items (got ${actions.length})`);

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

function build(actions: Action[]): string {
  const response = new VoiceResponse();
  for (const action of actions) {
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
  return response.toString();
}
