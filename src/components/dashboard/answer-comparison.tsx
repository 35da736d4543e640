import { Badge } from "@/components/ui/badge";
import { CodeLabel } from "@/components/ui/code-label";
import { TwimlDiff } from "./twiml-diff";

/** How two answers to the same call.started compared (docs/decisions.md §23), after normalising the TwiML. */
type ComparisonOutcome = "same" | "different" | "failed";

type Answer = { answer: string | null; twiml: string | null; latencyMs?: number; error?: string | null };

const OUTCOME: Record<ComparisonOutcome, { label: string; tone: "green" | "amber" | "red" }> = {
  same: { label: "Same answer", tone: "green" },
  different: { label: "Different answer", tone: "amber" },
  failed: { label: "Failed", tone: "red" },
};

export function OutcomeBadge({ outcome }: { outcome: ComparisonOutcome }) {
  const o = OUTCOME[outcome];
  return (
    <Badge tone={o.tone} data-testid="comparison-outcome" title={outcome}>
      {o.label}
    </Badge>
  );
}

/**
 * Two answers to one call side by side: how each decided the call, how long each took, why the second failed,
 * and their TwiML as a diff. The shadow report's calls and a replay's result show it the same way.
 */
export function AnswerComparison({
  a,
  b,
  aTitle,
  bTitle,
  "data-testid": testId,
}: {
  a: Answer;
  b: Answer;
  aTitle: string;
  bTitle: string;
  "data-testid"?: string;
}) {
  return (
    <div className="min-w-0 space-y-3" data-testid={testId}>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <AnswerFacts title={aTitle} answer={a} testId="comparison-a" />
        <AnswerFacts title={bTitle} answer={b} testId="comparison-b" />
      </div>
      <TwimlDiff a={{ title: aTitle, twiml: a.twiml }} b={{ title: bTitle, twiml: b.twiml }} data-testid="twiml-diff" />
    </div>
  );
}

function AnswerFacts({ title, answer, testId }: { title: string; answer: Answer; testId: string }) {
  return (
    <div className="min-w-0 rounded-md border border-slate-200 p-2 text-xs dark:border-slate-700" data-testid={testId}>
      <p className="text-sm font-semibold text-slate-900 dark:text-slate-100">{title}</p>
      <dl className="mt-1 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1">
        <dt className="text-slate-500 dark:text-slate-400">Answer</dt>
        <dd>
          <CodeLabel code={answer.answer} data-testid="comparison-answer" />
        </dd>
        {answer.latencyMs === undefined ? null : (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Took</dt>
            <dd data-testid="comparison-latency">{`${answer.latencyMs} ms`}</dd>
          </>
        )}
        {answer.error ? (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Error</dt>
            <dd className="break-words text-red-700 dark:text-red-300" data-testid="comparison-error">
              {answer.error}
            </dd>
          </>
        ) : null}
      </dl>
    </div>
  );
}
