"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { SelectField } from "@/components/ui/field";
import { messageOf, useTRPC } from "@/lib/trpc/client";
import { EVENT_TYPES, EVENT_URL_FIELD, type EventType } from "@/server/schemas/events";

const TYPES = EVENT_TYPES.map((type) => ({ type, field: EVENT_URL_FIELD[type] }));

type NumberUrls = { id: string; onCallStartUrl: string; onCallEndUrl: string; onErrorUrl: string | null };

/**
 * Sends a signed sample event (`data.test = true`) to one of the number's URLs
 * and shows what the endpoint answered, so signature checks can be tried
 * before a real call. The attempt is in the delivery log like any other.
 */
export function SendTestEvent({ number, onClose }: { number: NumberUrls; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const [type, setType] = useState<EventType>("call.ended");
  const send = useMutation(
    trpc.webhookDeliveries.sendTest.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries(trpc.webhookDeliveries.pathFilter()),
    }),
  );
  const attempt = send.data?.delivery.attempts[0] ?? null;
  const ok = attempt?.statusCode != null && attempt.statusCode >= 200 && attempt.statusCode < 300;

  return (
    <section
      aria-labelledby={headingId}
      data-testid="test-event-panel"
      className="mt-4 space-y-3 border-t border-slate-100 dark:border-slate-800 pt-4"
    >
      <h3 id={headingId} className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        Send a test event
      </h3>
      <p className="text-xs text-slate-500 dark:text-slate-400">
        A signed sample event with <code className="font-mono">data.test = true</code> and call SID{" "}
        <code className="font-mono">CA000…</code>, sent once, now.
      </p>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <SelectField
          label="Event type"
          value={type}
          onChange={(e) => setType(e.target.value as EventType)}
          className="w-full sm:w-56"
          data-testid="test-event-type"
        >
          {TYPES.map((t) => (
            <option key={t.type} value={t.type} disabled={!number[t.field]}>
              {number[t.field] ? t.type : `${t.type} (no URL)`}
            </option>
          ))}
        </SelectField>
        <div className="flex gap-2">
          <Button size="sm" loading={send.isPending} onClick={() => send.mutate({ phoneNumberId: number.id, type })}>
            Send
          </Button>
          <Button variant="secondary" size="sm" onClick={onClose}>
            Close
          </Button>
        </div>
      </div>
      <div aria-live="polite">
        {send.error ? (
          <Alert tone="error" title="The test event was not sent" data-testid="test-event-error">
            {messageOf(send.error)}
          </Alert>
        ) : null}
        {send.data ? (
          <Alert
            tone={ok ? "success" : "error"}
            title={ok ? "Your endpoint accepted the test event" : "Your endpoint did not accept the test event"}
            data-testid="test-event-result"
          >
            <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 text-sm">
              <dt className="text-slate-500 dark:text-slate-400">Sent to</dt>
              <dd className="break-all font-mono text-xs leading-5">{send.data.delivery.url}</dd>
              <dt className="text-slate-500 dark:text-slate-400">Answer</dt>
              <dd data-testid="test-event-status">
                {attempt?.statusCode != null ? `HTTP ${attempt.statusCode}` : (attempt?.error ?? "no response")}
              </dd>
              <dt className="text-slate-500 dark:text-slate-400">Latency</dt>
              <dd data-testid="test-event-latency">{attempt ? `${attempt.latencyMs} ms` : "—"}</dd>
              <dt className="text-slate-500 dark:text-slate-400">Excerpt</dt>
              <dd className="min-w-0">
                <pre
                  className="max-h-32 overflow-auto whitespace-pre-wrap break-all rounded bg-white/60 p-2 font-mono text-xs"
                  data-testid="test-event-excerpt"
                >
                  {attempt?.responseExcerpt || "(empty)"}
                </pre>
              </dd>
            </dl>
          </Alert>
        ) : null}
      </div>
    </section>
  );
}
