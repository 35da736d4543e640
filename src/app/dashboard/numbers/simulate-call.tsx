"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { endReasonOutcome, errorCodeOutcome } from "@/shared/call-outcomes";
import { messageOf, useTRPC } from "@/client/trpc/client";
import { useRole } from "@/client/use-role";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";

/** How the call was decided (docs/decisions.md §11, §12), in words; the code is shown beside it. */
const ANSWER_LABELS: Record<string, string> = {
  xml: "Your backend answered TwiML (XML)",
  "json-twiml": "Your backend answered JSON with TwiML",
  "json-actions": "Your backend answered JSON actions",
  "fallback-url": "Your fallback URL answered",
  "fallback-actions": "Your fallback actions answered",
  "fallback-twiml": "Your fallback TwiML answered",
  fallback: "The last resort answered (your lastResort, or the built-in apology)",
  reject: "Routekit rejected the call",
};

type TimelineEntry = { type: string; at: string } & Record<string, unknown>;

function describeEntry(e: TimelineEntry): string {
  switch (e.type) {
    case "request":
      return `Voice request (${String(e.callStatus)}), as Twilio would send it`;
    case "call.started": {
      const answer = e.statusCode != null ? `HTTP ${e.statusCode}` : String(e.error ?? "no answer");
      return `call.started (${String(e.attempt)}) to ${String(e.url)}: ${answer}, ${String(e.latencyMs)} ms${e.outcome ? `, ${String(e.outcome)}` : ""}`;
    }
    case "twiml":
      return "TwiML returned";
    case "event":
      return `${String(e.eventType)} queued to ${String(e.url ?? "your endpoints")}`;
    default:
      return e.type;
  }
}

/**
 * docs/decisions.md §21: runs the engine's whole inbound flow for this number as if Twilio had called
 * (POST /api/phone-numbers/{id}/simulate-call) and shows what Twilio would have received, how the answer
 * was decided, the call's timeline and any error with its label and what to do. The call is a test call:
 * never billed, never sent to Twilio, listed by GET /api/calls only with ?test=true.
 */
export function SimulateCall({
  number,
  onClose,
}: {
  number: { id: string; phoneNumber: string };
  onClose?: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const reasonId = useId();
  // The setup guide shows this panel outright, so the role is checked here too (the standing stays the server's
  // answer, shown below as before).
  const forbidden = useRole().reasonFor("write", "simulate calls");
  const simulate = useMutation(
    trpc.phoneNumbers.simulateCall.mutationOptions({
      onSuccess: () =>
        void Promise.all([
          queryClient.invalidateQueries(trpc.calls.pathFilter()),
          queryClient.invalidateQueries(trpc.webhookDeliveries.pathFilter()),
        ]),
    }),
  );
  const panelRef = useRef<HTMLElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  useEffect(() => panelRef.current?.scrollIntoView({ block: "nearest" }), []);
  useEffect(() => {
    if (simulate.data || simulate.error) resultRef.current?.scrollIntoView({ block: "nearest" });
  }, [simulate.data, simulate.error]);

  const call = simulate.data?.call;
  const error = call?.error ?? null;
  const errorOutcome = error ? errorCodeOutcome(error.code) : null;
  const ended = call?.endReason ? endReasonOutcome(call.endReason) : null;

  return (
    <section
      ref={panelRef}
      aria-labelledby={headingId}
      data-testid="simulate-call-panel"
      className="mt-4 space-y-3 border-t border-slate-100 dark:border-slate-800 pt-4"
    >
      <h3 id={headingId} className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        Simulate a call to {number.phoneNumber}
      </h3>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        Routekit calls your call start URL exactly as for a real call (signed, with{" "}
        <code className="font-mono">data.test = true</code>, fallbacks as configured) and shows the TwiML Twilio would
        have received. Nothing is sent to Twilio and nothing is billed.
      </p>
      <div className="flex gap-2">
        <Button
          size="sm"
          loading={simulate.isPending}
          disabled={forbidden !== null}
          aria-describedby={forbidden ? reasonId : undefined}
          data-testid="simulate-call-run"
          onClick={() => simulate.mutate({ id: number.id })}
        >
          {simulate.data ? "Simulate again" : "Start the simulated call"}
        </Button>
        {onClose ? (
          <Button variant="secondary" size="sm" onClick={onClose}>
            Close
          </Button>
        ) : null}
      </div>
      <ForbiddenReason reason={forbidden} id={reasonId} />
      <div aria-live="polite" ref={resultRef}>
        {simulate.error ? (
          <Alert tone="error" title="The call was not simulated" data-testid="simulate-call-error">
            {messageOf(simulate.error)}
          </Alert>
        ) : null}
        {call && simulate.data ? (
          <Alert
            tone={error ? "error" : "success"}
            title={
              error ? "Your backend's answer was not used: a fallback took over" : "Your backend answered the call"
            }
            data-testid="simulate-call-result"
          >
            <dl className="grid grid-cols-1 gap-x-3 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
              <dt className="text-slate-500 dark:text-slate-400">Answer</dt>
              <dd data-testid="simulate-call-answer">
                {call.answer ? (ANSWER_LABELS[call.answer] ?? call.answer) : "none"}{" "}
                {call.answer ? <code className="font-mono text-xs text-slate-500">{call.answer}</code> : null}
              </dd>
              {error ? (
                <>
                  <dt className="text-slate-500 dark:text-slate-400">Error</dt>
                  <dd data-testid="simulate-call-error-code">
                    <span className="font-medium">{errorOutcome?.label ?? error.code}</span>{" "}
                    <code className="font-mono text-xs text-slate-500">{error.code}</code>
                    <span className="block text-xs">{error.message}</span>
                    {errorOutcome ? <span className="block text-xs">{errorOutcome.action}</span> : null}
                  </dd>
                </>
              ) : null}
              <dt className="text-slate-500 dark:text-slate-400">Ended</dt>
              <dd>
                {ended?.label ?? call.endReason ?? "—"} (test call, not billed){" "}
                <code className="font-mono text-xs text-slate-500" data-testid="simulate-call-sid">
                  {call.callSid}
                </code>
              </dd>
              <dt className="text-slate-500 dark:text-slate-400">TwiML</dt>
              <dd className="min-w-0">
                <pre
                  className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded bg-white/60 p-2 font-mono text-xs dark:bg-slate-900/60"
                  data-testid="simulate-call-twiml"
                >
                  {simulate.data.twiml}
                </pre>
              </dd>
              <dt className="text-slate-500 dark:text-slate-400">Timeline</dt>
              <dd className="min-w-0">
                <ol className="space-y-0.5 text-xs" data-testid="simulate-call-timeline">
                  {call.timeline.map((e) => (
                    <li key={`${e.type}-${e.at}-${describeEntry(e as TimelineEntry)}`} className="break-all">
                      <span className="font-mono text-slate-500">
                        +{Math.max(0, Date.parse(e.at) - Date.parse(call.startedAt))} ms
                      </span>{" "}
                      {describeEntry(e as TimelineEntry)}
                    </li>
                  ))}
                </ol>
              </dd>
            </dl>
          </Alert>
        ) : null}
      </div>
    </section>
  );
}
