import { twimlFromActions } from "../answers/actions-to-twiml";
import { fallbackTwiml } from "../answers/fixed-twiml";
import { db } from "../../db/client";
import type { AnswerPolicy } from "../../../shared/schemas/answer-policy";
import { notOwnedOrMissing } from "./phone-number-dto";

type Step = {
  takenOverBy: "fallback-url" | "fallback-actions" | "fallback-twiml" | "last-resort" | "apology";
  url: string | null;
  twiml: string | null;
};

/**
 * What a caller to this number would get when onCallStartUrl fails (docs/decisions.md §12), rendered
 * from the stored fallback and last resort without calling anything: the first step, and what
 * follows when that step is a URL that fails too.
 */
export async function previewFallback(opts: { accountId: string; id: string }) {
  const n = await db().phoneNumber.findFirst({
    where: { id: opts.id, accountId: opts.accountId },
    select: { answerPolicy: true },
  });
  if (!n) return notOwnedOrMissing(opts.id);
  const policy = (n.answerPolicy ?? {}) as AnswerPolicy;
  const last = lastResortStep(policy);
  const f = policy.fallback;
  let first: Step = last;
  if (f && "url" in f) first = { takenOverBy: "fallback-url", url: f.url, twiml: null };
  else if (f && "twiml" in f)
    first = { takenOverBy: "fallback-twiml", url: null, twiml: f.twiml.replace(/^[\ufeff\s]+/, "") };
  else if (f && "actions" in f) {
    const built = twimlFromActions(f.actions);
    if (built.ok) first = { takenOverBy: "fallback-actions", url: null, twiml: built.twiml };
  }
  return { preview: { first, thenIfItFails: first.takenOverBy === "fallback-url" ? last : null } };
}

function lastResortStep(policy: AnswerPolicy): Step {
  if (policy.lastResort) {
    const built = twimlFromActions(policy.lastResort.actions);
    if (built.ok) return { takenOverBy: "last-resort", url: null, twiml: built.twiml };
  }
  return { takenOverBy: "apology", url: null, twiml: fallbackTwiml() };
}
