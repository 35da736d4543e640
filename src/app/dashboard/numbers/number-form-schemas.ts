import { z } from "zod";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { normalizeUsNumber } from "@/shared/us-number";
import { phoneNumberInputSchemas } from "@/shared/schemas/phone-numbers";

/** What the number forms hold: text boxes, so every value is a string. */
export type NumberFormValues = {
  phoneNumber: string;
  onCallStartUrl: string;
  onCallEndUrl: string;
  onErrorUrl: string;
};
export type UrlFormValues = Omit<NumberFormValues, "phoneNumber">;

// An empty optional box means "no URL": the API's schema takes that as absent (create) or null (edit, which clears it).
const blankAs =
  <T>(value: T) =>
  (v: unknown) =>
    typeof v === "string" && v.trim() === "" ? value : v;

/** The API's create schema, reading the form's strings (a number typed as `(415) 555-0123` is sent as E.164). */
export function createNumberFormSchema(policy: CallbackUrlPolicyOptions) {
  const create = phoneNumberInputSchemas(() => policy).create;
  return create.extend({
    phoneNumber: z.preprocess((v) => (typeof v === "string" ? normalizeUsNumber(v) : v), create.shape.phoneNumber),
    onErrorUrl: z.preprocess(blankAs(undefined), create.shape.onErrorUrl),
  });
}

/** The callback URLs alone (the Twilio page registers many numbers with one set). */
export function callbackUrlsFormSchema(policy: CallbackUrlPolicyOptions) {
  return createNumberFormSchema(policy).omit({ phoneNumber: true, configureTwilio: true });
}

/** The API's update schema for the three URLs; all required but the error URL, which an empty box clears. */
export function editNumberFormSchema(policy: CallbackUrlPolicyOptions) {
  const update = phoneNumberInputSchemas(() => policy).update;
  const create = phoneNumberInputSchemas(() => policy).create;
  return z.object({
    onCallStartUrl: create.shape.onCallStartUrl,
    onCallEndUrl: create.shape.onCallEndUrl,
    onErrorUrl: z.preprocess(blankAs(null), update.shape.onErrorUrl.unwrap()),
  });
}

const FALLBACK_KINDS = ["none", "url", "actions", "twiml"] as const;
type FallbackKind = (typeof FALLBACK_KINDS)[number];

/** The answer policy as the number form holds it: text boxes and a kind picker. */
export type AnswerPolicyFormValues = {
  answerTimeoutMs: string;
  fallbackKind: FallbackKind;
  fallbackUrl: string;
  fallbackActions: string;
  fallbackTwiml: string;
  lastResortActions: string;
};

type StoredPolicy = {
  answerTimeoutMs: number | null;
  fallback: { url: string } | { actions: unknown[] } | { twiml: string } | null;
  lastResort: { actions: unknown[] } | null;
};

/** A number's stored policy as form values. */
export function answerPolicyFormValues(n: StoredPolicy): AnswerPolicyFormValues {
  const f = n.fallback;
  return {
    answerTimeoutMs: n.answerTimeoutMs === null ? "" : String(n.answerTimeoutMs),
    fallbackKind: f === null ? "none" : "url" in f ? "url" : "actions" in f ? "actions" : "twiml",
    fallbackUrl: f && "url" in f ? f.url : "",
    fallbackActions: f && "actions" in f ? JSON.stringify(f.actions, null, 2) : "",
    fallbackTwiml: f && "twiml" in f ? f.twiml : "",
    lastResortActions: n.lastResort ? JSON.stringify(n.lastResort.actions, null, 2) : "",
  };
}

const ACTIONS_HINT = 'a JSON array of actions, like [{"say": "Please hold"}, {"dial": "+14155550123"}]';

/**
 * The form's strings read into the API's fields (`answerTimeoutMs`, `fallback`, `lastResort`; an
 * empty box is null, which clears), checked by the API's own schema where the browser can: the URL
 * policy, the ranges and the shapes; the actions and TwiML themselves are checked by the server on save.
 */
export function answerPolicyFormFields(policy: CallbackUrlPolicyOptions) {
  const api = phoneNumberInputSchemas(() => policy).update.shape;
  const strings = {
    answerTimeoutMs: z.string(),
    fallbackKind: z.enum(FALLBACK_KINDS),
    fallbackUrl: z.string(),
    fallbackActions: z.string(),
    fallbackTwiml: z.string(),
    lastResortActions: z.string(),
  };
  const read = (v: AnswerPolicyFormValues, ctx: z.RefinementCtx) => {
    const issue = (path: keyof AnswerPolicyFormValues, message: string) => {
      ctx.addIssue({ code: "custom", path: [path], message });
      return z.NEVER;
    };
    const json = (path: "fallbackActions" | "lastResortActions", text: string): unknown[] | undefined => {
      try {
        const parsed: unknown = JSON.parse(text);
        if (Array.isArray(parsed)) return parsed;
      } catch {}
      issue(path, `must be ${ACTIONS_HINT}`);
      return undefined;
    };
    let answerTimeoutMs: number | null = null;
    if (v.answerTimeoutMs.trim() !== "") {
      const r = api.answerTimeoutMs.safeParse(Number(v.answerTimeoutMs));
      if (!r.success) issue("answerTimeoutMs", "must be a whole number of milliseconds from 1000 to 10000");
      else answerTimeoutMs = r.data ?? null;
    }
    let fallback: { url: string } | { actions: unknown[] } | { twiml: string } | null = null;
    if (v.fallbackKind === "url") {
      const r = api.fallback.safeParse({ url: v.fallbackUrl });
      if (!r.success) issue("fallbackUrl", r.error.issues[0]?.message ?? "is not a URL Routekit may call");
      else fallback = { url: v.fallbackUrl.trim() };
    } else if (v.fallbackKind === "actions") {
      const actions = json("fallbackActions", v.fallbackActions);
      if (actions) fallback = { actions };
    } else if (v.fallbackKind === "twiml") {
      if (v.fallbackTwiml.trim() === "") issue("fallbackTwiml", "must be a TwiML <Response> document");
      else fallback = { twiml: v.fallbackTwiml };
    }
    let lastResort: { actions: unknown[] } | null = null;
    if (v.lastResortActions.trim() !== "") {
      const actions = json("lastResortActions", v.lastResortActions);
      if (actions) lastResort = { actions };
    }
    return { answerTimeoutMs, fallback, lastResort };
  };
  return { strings, read };
}
