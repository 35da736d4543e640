/**
 * What decides a call when its onCallStartUrl cannot (docs/decisions.md §12): per number and per
 * outbound call, `answerTimeoutMs`, `fallback` and `lastResort`. Stored fallbacks are checked here,
 * when saved, with the checks an answer gets (the TwiML checker, the actions builder, the callback
 * URL policy), so a bad one is a 400 then and never a surprise during a call.
 */
import { z } from "zod";
import { type CallbackUrlPolicyOptions, zCallbackUrl } from "../url-policy";
import { ACTIONS_MAX_ITEMS, boundedInt, outputUrl, STORED_TWIML_MAX_CHARS } from "./bounds";

/**
 * How stored actions and TwiML are checked: the server's are the engine's own checks
 * (engine/answer/answer-checks.ts); the dashboard, which must not bundle the Twilio SDK, passes
 * none and shows the server's verdict on save.
 */
export type AnswerChecks = {
  /** A message when the actions cannot be built, else null. */
  actions(actions: unknown[], policy: CallbackUrlPolicyOptions): string | null;
  /** A message when the document is not a TwiML <Response> the engine would return, else null. */
  twiml(twiml: string): string | null;
};

const ANSWER_TIMEOUT_MIN_MS = 1000;
const ANSWER_TIMEOUT_MAX_MS = 10_000;

export type StoredFallback = { url: string } | { actions: unknown[] } | { twiml: string };
export type StoredLastResort = { actions: unknown[] };
/** As kept on the number and copied onto each call (the `answerPolicy` json column). */
export type AnswerPolicy = {
  answerTimeoutMs?: number;
  fallback?: StoredFallback;
  lastResort?: StoredLastResort;
};

const ACTIONS_DOC =
  "Actions, one vocabulary with answers: say (with voice, language), play, pause, dial, gather, record, hangup, reject";

const FIELD = {
  answerTimeoutMs:
    "Milliseconds onCallStartUrl gets to answer call.started, 1000–10000 (default CALLBACK_START_TIMEOUT_MS). A refused or reset connection is tried once more at once while at least 1 s remains.",
  fallback:
    'What decides the call when onCallStartUrl\'s answer cannot be used (time-out, non-2xx, invalid document): { "url" } a second backend that receives the same signed call.started with data.fallback, or { "actions" } / { "twiml" } kept by Routekit and answered at once. Checked when saved.',
  lastResort: `What the caller hears when neither onCallStartUrl nor the fallback could decide the call: { "actions" }. Default: a short apology, then hang up. ${ACTIONS_DOC}.`,
} as const;

const zActions = z.array(z.unknown()).min(1).max(ACTIONS_MAX_ITEMS);

/** The three optional input fields, for create (omitted: none) and PATCH (omitted: unchanged, null: cleared). */
export function answerPolicyInputFields(policy: () => CallbackUrlPolicyOptions, checks?: AnswerChecks) {
  const checkActions = (actions: unknown[], ctx: z.RefinementCtx, path: (string | number)[]) => {
    const message = checks?.actions(actions, policy()) ?? null;
    if (message) ctx.addIssue({ code: "custom", path, message });
  };
  const url = zCallbackUrl(policy);
  const fallback = z
    .strictObject({
      url: url.optional().describe("A second backend: receives the same signed call.started, with data.fallback"),
      actions: zActions.optional().describe(ACTIONS_DOC),
      twiml: z
        .string()
        .max(STORED_TWIML_MAX_CHARS)
        .optional()
        .describe("A TwiML <Response> document, at most 16 KiB, returned as is"),
    })
    .superRefine((f, ctx) => {
      const given = (["url", "actions", "twiml"] as const).filter((k) => f[k] !== undefined);
      if (given.length !== 1) {
        ctx.addIssue({ code: "custom", message: "must have exactly one of url, actions or twiml" });
        return;
      }
      if (f.actions !== undefined) checkActions(f.actions, ctx, ["actions"]);
      if (f.twiml !== undefined) {
        const message = checks?.twiml(f.twiml) ?? null;
        if (message) ctx.addIssue({ code: "custom", path: ["twiml"], message });
      }
    });
  const lastResort = z
    .strictObject({ actions: zActions.describe(ACTIONS_DOC) })
    .superRefine((l, ctx) => checkActions(l.actions, ctx, ["actions"]));
  return {
    answerTimeoutMs: z
      .number()
      .int({ message: "must be a whole number of milliseconds" })
      .min(ANSWER_TIMEOUT_MIN_MS)
      .max(ANSWER_TIMEOUT_MAX_MS)
      .meta({ format: "int32" })
      .nullable()
      .optional()
      .describe(`${FIELD.answerTimeoutMs} On PATCH: omitted unchanged, null back to the default.`),
    fallback: fallback.nullable().optional().describe(`${FIELD.fallback} On PATCH: omitted unchanged, null clears.`),
    lastResort: lastResort
      .nullable()
      .optional()
      .describe(`${FIELD.lastResort} On PATCH: omitted unchanged, null clears.`),
  };
}

/** As the API shows them: null when not set. */
export const ZAnswerPolicyOutput = {
  answerTimeoutMs: boundedInt(ANSWER_TIMEOUT_MIN_MS, ANSWER_TIMEOUT_MAX_MS)
    .nullable()
    .describe(`${FIELD.answerTimeoutMs} Null: the default.`),
  fallback: z
    .union([
      z.object({ url: outputUrl().describe("The fallback backend") }),
      z.object({ actions: z.array(z.unknown()).max(ACTIONS_MAX_ITEMS).describe(ACTIONS_DOC) }),
      z.object({ twiml: z.string().max(STORED_TWIML_MAX_CHARS).describe("A TwiML <Response> document") }),
    ])
    .nullable()
    .describe(`${FIELD.fallback} Null: none.`),
  lastResort: z
    .object({ actions: z.array(z.unknown()).max(ACTIONS_MAX_ITEMS).describe(ACTIONS_DOC) })
    .nullable()
    .describe(`${FIELD.lastResort} Null: the apology.`),
};

type PolicyInput = {
  answerTimeoutMs?: number | null;
  fallback?: { url?: string; actions?: unknown[]; twiml?: string } | null;
  lastResort?: { actions: unknown[] } | null;
};

function storedFallback(f: NonNullable<PolicyInput["fallback"]>): StoredFallback {
  if (f.url !== undefined) return { url: f.url };
  if (f.actions !== undefined) return { actions: f.actions };
  return { twiml: f.twiml! };
}

/**
 * The policy to store: `base` (what is stored now; null on create) with the input's fields applied
 * (omitted: unchanged, null: removed). Undefined when the input touches none of them; null when
 * nothing is left.
 */
export function applyAnswerPolicy(base: AnswerPolicy | null, input: PolicyInput): AnswerPolicy | null | undefined {
  if (input.answerTimeoutMs === undefined && input.fallback === undefined && input.lastResort === undefined)
    return undefined;
  const next: AnswerPolicy = { ...(base ?? {}) };
  if (input.answerTimeoutMs === null) delete next.answerTimeoutMs;
  else if (input.answerTimeoutMs !== undefined) next.answerTimeoutMs = input.answerTimeoutMs;
  if (input.fallback === null) delete next.fallback;
  else if (input.fallback !== undefined) next.fallback = storedFallback(input.fallback);
  if (input.lastResort === null) delete next.lastResort;
  else if (input.lastResort !== undefined) next.lastResort = { actions: input.lastResort.actions };
  return Object.keys(next).length ? next : null;
}

/** The three fields as the API shows them. */
export function answerPolicyDto(stored: unknown) {
  const p = (stored ?? {}) as AnswerPolicy;
  return {
    answerTimeoutMs: p.answerTimeoutMs ?? null,
    fallback: p.fallback ?? null,
    lastResort: p.lastResort ?? null,
  };
}
