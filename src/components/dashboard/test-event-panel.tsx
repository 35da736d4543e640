"use client";

import { ScrollPre } from "@/components/ui/scroll-pre";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SelectField } from "@/components/ui/field";
import { messageOf, useTRPC } from "@/client/trpc/client";
import type { EventType } from "@/shared/schemas/events";

export type TestEventChoice = { type: EventType; label: string; disabled?: boolean };

/**
 * "Send a test event", for a number's URLs and for a webhook endpoint alike: a signed sample event
 * (`data.test = true`) sent once, now, and what the endpoint answered, shown right under the button that sent
 * it. The panel opens in view and its result is brought into view (never left below the fold). The attempt is
 * in the delivery log like any other; the result links to it. `testId` names the panel's parts
 * (`<testId>-panel`, `-type`, `-result`, `-status`, `-latency`, `-excerpt`, `-error`).
 */
export function TestEventPanel({
  target,
  choices,
  initialType,
  description,
  testId,
  onClose,
}: {
  target: { phoneNumberId: string } | { endpointId: string };
  choices: TestEventChoice[];
  initialType: EventType;
  description: ReactNode;
  testId: string;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const [type, setType] = useState<EventType>(initialType);
  const send = useMutation(
    trpc.webhookDeliveries.sendTest.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries(trpc.webhookDeliveries.pathFilter()),
    }),
  );
  const panelRef = useRef<HTMLElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    panelRef.current?.scrollIntoView({ block: "nearest" });
  }, []);
  useEffect(() => {
    if (send.data || send.error) resultRef.current?.scrollIntoView({ block: "nearest" });
  }, [send.data, send.error]);
  const attempt = send.data?.delivery.attempts[0] ?? null;
  const ok = attempt?.statusCode != null && attempt.statusCode >= 200 && attempt.statusCode < 300;
  const deliveryHref = send.data
    ? `/dashboard/deliveries?${"endpointId" in target ? `endpoint=${target.endpointId}&` : ""}delivery=${send.data.delivery.id}`
    : null;

  return (
    <section
      ref={panelRef}
      aria-labelledby={headingId}
      data-testid={`${testId}-panel`}
      className="mt-4 space-y-3 border-t border-slate-100 dark:border-slate-800 pt-4"
    >
      <h3 id={headingId} className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        Send a test event
      </h3>
      <p className="text-xs text-slate-500 dark:text-slate-400">{description}</p>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <SelectField
          label="Event type"
          value={type}
          onChange={(e) => setType(e.target.value as EventType)}
          className="w-full sm:w-56"
          data-testid={`${testId}-type`}
        >
          {choices.map((c) => (
            <option key={c.type} value={c.type} disabled={c.disabled}>
              {c.label}
            </option>
          ))}
        </SelectField>
        <div className="flex gap-2">
          <Button size="sm" loading={send.isPending} onClick={() => send.mutate({ ...target, type })}>
            Send
          </Button>
          <Button variant="secondary" size="sm" onClick={onClose}>
            Close
          </Button>
        </div>
      </div>
      <div aria-live="polite" ref={resultRef}>
        {send.error ? (
          <Alert tone="error" title="The test event was not sent" data-testid={`${testId}-error`}>
            {messageOf(send.error)}
          </Alert>
        ) : null}
        {send.data ? (
          <Alert
            tone={ok ? "success" : "error"}
            title={ok ? "Your endpoint accepted the test event" : "Your endpoint did not accept the test event"}
            data-testid={`${testId}-result`}
          >
            <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="text-slate-500 dark:text-slate-400">Sent to</dt>
              <dd className="break-all font-mono text-xs leading-5">{send.data.delivery.url}</dd>
              <dt className="text-slate-500 dark:text-slate-400">Answer</dt>
              <dd data-testid={`${testId}-status`}>
                {attempt?.statusCode != null ? `HTTP ${attempt.statusCode}` : (attempt?.error ?? "no response")}
              </dd>
              <dt className="text-slate-500 dark:text-slate-400">Latency</dt>
              <dd data-testid={`${testId}-latency`}>{attempt ? `${attempt.latencyMs} ms` : "—"}</dd>
              <dt className="text-slate-500 dark:text-slate-400">Excerpt</dt>
              <dd className="min-w-0">
                <ScrollPre
                  className="max-h-32 overflow-auto whitespace-pre-wrap break-all rounded bg-white/60 p-2 font-mono text-xs"
                  data-testid={`${testId}-excerpt`}
                >
                  {attempt?.responseExcerpt || "(empty)"}
                </ScrollPre>
              </dd>
            </dl>
            {deliveryHref ? (
              <Link
                href={deliveryHref}
                className="mt-2 inline-block text-sm font-medium text-indigo-700 underline dark:text-indigo-300"
              >
                See the delivery
              </Link>
            ) : null}
          </Alert>
        ) : null}
      </div>
    </section>
  );
}
