"use client";

import { useQuery } from "@tanstack/react-query";
import { Panel } from "@/components/ui/card";
import { useTRPC } from "@/client/trpc/client";

/** The call SID of every sample event (POST /api/webhook-deliveries/test, docs/decisions.md §8). */
const SAMPLE_CALL_SID = `CA${"0".repeat(32)}`;
/** The answers a backend gave itself: a simulated call decided by one of these was answered by the customer's backend. */
const BACKEND_ANSWERS = "xml,json-twiml,json-actions";

type Step = { key: string; label: string; done: boolean; href: string; action: string };

/**
 * The Overview's set-up checklist (issue #30, docs/dashboard.md): each step done or not from the account's
 * real state, read through the same procedures as the pages that do it. Hidden once every step is done.
 * Paid → Twilio connected → a number → a simulated call answered by the backend → signatures verified
 * (a test event answered 2xx).
 */
export function SetupChecklist() {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  // 404 when there is none: not connected, and not an error here.
  const connection = useQuery(trpc.twilioConnection.get.queryOptions(undefined, { retry: false }));
  const numbers = useQuery(trpc.phoneNumbers.list.queryOptions());
  const simulated = useQuery(trpc.calls.list.queryOptions({ test: "true", answer: BACKEND_ANSWERS, limit: 1 }));
  const verified = useQuery(
    trpc.webhookDeliveries.list.queryOptions({ callSid: SAMPLE_CALL_SID, status: "DELIVERED", limit: 1 }),
  );
  const settled = [account, connection, numbers, simulated, verified].every((q) => !q.isPending);
  if (!settled || !account.data) return null;

  const steps: Step[] = [
    {
      key: "paid",
      label: "Pay for your plan",
      done: account.data.account.status === "ACTIVE",
      href: "/dashboard/billing",
      action: "Go to billing",
    },
    {
      key: "twilio",
      label: "Connect Twilio",
      done: Boolean(connection.data?.twilioConnection),
      href: "/dashboard/twilio",
      action: "Connect Twilio",
    },
    {
      key: "number",
      label: "Add a number",
      done: (numbers.data?.phoneNumbers ?? []).some((n) => n.isActive),
      href: "/dashboard/numbers",
      action: "Add a number",
    },
    {
      key: "simulated",
      label: "Simulate a call your backend answers",
      done: (simulated.data?.calls.length ?? 0) > 0,
      href: "/dashboard/setup",
      action: "Simulate a call",
    },
    {
      key: "signatures",
      label: "Verify signatures (a test event answered 2xx)",
      done: (verified.data?.deliveries.length ?? 0) > 0,
      href: "/dashboard/numbers",
      action: "Send a test event",
    },
  ];
  const done = steps.filter((s) => s.done).length;
  if (done === steps.length) return null;

  return (
    <Panel title={`Set up Routekit: ${done} of ${steps.length} done`}>
      <ol aria-label="Set-up steps" className="space-y-2 text-sm" data-testid="setup-checklist">
        {steps.map((s) => (
          <li
            key={s.key}
            data-testid={`checklist-${s.key}`}
            data-done={s.done ? "true" : "false"}
            className="flex flex-wrap items-center justify-between gap-2"
          >
            <span
              className={
                s.done ? "text-slate-500 line-through dark:text-slate-400" : "text-slate-900 dark:text-slate-100"
              }
            >
              <span aria-hidden="true">{s.done ? "✓ " : "○ "}</span>
              {s.label}
              <span className="sr-only">{s.done ? " (done)" : " (not done)"}</span>
            </span>
            {s.done ? null : (
              <a
                className="text-sm font-semibold text-indigo-600 hover:text-indigo-500 dark:text-indigo-400 dark:hover:text-indigo-300"
                href={s.href}
              >
                {s.action}
              </a>
            )}
          </li>
        ))}
      </ol>
    </Panel>
  );
}
