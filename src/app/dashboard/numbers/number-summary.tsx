import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";

type PhoneNumber = inferRouterOutputs<AppRouter>["phoneNumbers"]["get"]["phoneNumber"];

/** A number's callbacks, what decides a call when they fail, and its daily cap: on the list and on the number's page. */
export function NumberSummary({ number }: { number: PhoneNumber }) {
  return (
    <dl className="mt-3 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
      <dt className="text-slate-500 dark:text-slate-400">Call start URL</dt>
      <dd
        className="break-all font-mono text-xs leading-5 text-slate-800 dark:text-slate-200"
        data-testid="number-start-url"
      >
        {number.onCallStartUrl}
      </dd>
      <dt className="text-slate-500 dark:text-slate-400">Call end URL</dt>
      <dd
        className="break-all font-mono text-xs leading-5 text-slate-800 dark:text-slate-200"
        data-testid="number-end-url"
      >
        {number.onCallEndUrl}
      </dd>
      <dt className="text-slate-500 dark:text-slate-400">Error URL</dt>
      <dd
        className="break-all font-mono text-xs leading-5 text-slate-800 dark:text-slate-200"
        data-testid="number-error-url"
      >
        {number.onErrorUrl ?? <span className="font-sans text-slate-500 dark:text-slate-400">none</span>}
      </dd>
      <dt className="text-slate-500 dark:text-slate-400">When it fails</dt>
      <dd className="text-xs leading-5 text-slate-800 dark:text-slate-200" data-testid="number-fallback">
        {describePolicy(number)}
      </dd>
      <dt className="text-slate-500 dark:text-slate-400">Daily cap</dt>
      <dd className="text-xs leading-5 text-slate-800 dark:text-slate-200" data-testid="number-daily-cap">
        {number.dailyMinuteCap === null
          ? `No cap. ${number.minutesToday} billed min today (UTC)`
          : `${number.minutesToday} of ${number.dailyMinuteCap} billed min today (UTC)${number.minutesToday >= number.dailyMinuteCap ? ": reached, calls are refused until 00:00 UTC" : ""}`}
      </dd>
    </dl>
  );
}

/** One line on what decides a call when the call start URL fails. */
function describePolicy(n: PhoneNumber): string {
  const timeout = n.answerTimeoutMs === null ? "" : ` after ${n.answerTimeoutMs} ms`;
  const f = n.fallback;
  const fallback =
    f === null
      ? null
      : "url" in f
        ? `asks ${f.url}`
        : "actions" in f
          ? "answers with your actions"
          : "answers with your TwiML";
  const last = n.lastResort ? "your last resort" : "the built-in apology";
  return fallback
    ? `Fallback${timeout} ${fallback}; then ${last}.`
    : `${last[0]!.toUpperCase()}${last.slice(1)}${timeout}.`;
}
