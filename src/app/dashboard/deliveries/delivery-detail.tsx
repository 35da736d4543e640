"use client";

import { CodeLabel } from "@/components/ui/code-label";
import { ScrollPre } from "@/components/ui/scroll-pre";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { StatusBadge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Drawer } from "@/components/ui/drawer";
import { QueryState } from "@/components/ui/query-state";
import { useToast } from "@/client/toast";
import { LocalTime } from "@/components/ui/local-time";
import { EndpointBackoffNotice } from "./endpoint-backoff";
import { useTRPC } from "@/client/trpc/client";
import { useRole } from "@/client/use-role";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { useShowError } from "@/client/show-error";
import { POLL_MS, attemptOutcome, destinationOf, dueSoon } from "./delivery-status";

/** One delivery: the event exactly as sent, every attempt, and redelivery. */
export function DeliveryDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const showError = useShowError();
  const detail = useQuery({
    ...trpc.webhookDeliveries.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data && dueSoon(q.state.data.delivery) ? POLL_MS : false),
  });

  // When a watched delivery settles, the log's row follows.
  const status = detail.data?.delivery.status;
  const previous = useRef(status);
  useEffect(() => {
    if (previous.current && status && previous.current !== status) {
      void queryClient.invalidateQueries(trpc.webhookDeliveries.list.pathFilter());
    }
    previous.current = status;
  }, [status, queryClient, trpc]);

  const forbidden = useRole().reasonFor("write", "redeliver events");
  const retry = useMutation(
    trpc.webhookDeliveries.retry.mutationOptions({
      onSuccess: async (data) => {
        queryClient.setQueryData(trpc.webhookDeliveries.get.queryKey({ id }), data);
        toast.success(`Redelivery of ${data.delivery.eventType} queued`);
        await queryClient.invalidateQueries(trpc.webhookDeliveries.pathFilter());
      },
      onError: (err) => showError(err),
    }),
  );

  return (
    <Drawer
      title={detail.data ? `Delivery of ${detail.data.delivery.eventType}` : "Delivery"}
      data-testid="delivery-detail"
      onClose={onClose}
      actions={
        // call.started was answered while Twilio waited; the call it decided is over, so it cannot be sent again.
        detail.data?.delivery.synchronous ? null : (
          <Button
            size="sm"
            loading={retry.isPending}
            disabled={!detail.data || forbidden !== null}
            aria-describedby={forbidden ? "redeliver-forbidden" : undefined}
            onClick={() => retry.mutate({ id })}
          >
            Redeliver
          </Button>
        )
      }
    >
      <div id="delivery-detail">
        {detail.data?.delivery.synchronous ? null : <ForbiddenReason reason={forbidden} id="redeliver-forbidden" />}
        <QueryState query={detail} loadingLabel="Loading delivery…">
          {({ delivery }) => <DetailBody delivery={delivery} />}
        </QueryState>
      </div>
    </Drawer>
  );
}

type Detail = {
  eventId: string;
  eventType: string;
  callSid: string | null;
  url: string;
  endpointId: string | null;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  endpointBackoffUntil: string | null;
  deliveredAt: string | null;
  createdAt: string;
  synchronous: boolean;
  answerUse: string | null;
  payload: Record<string, unknown>;
  attempts: {
    id: string;
    attemptedAt: string;
    url: string;
    statusCode: number | null;
    latencyMs: number;
    responseExcerpt: string | null;
    error: string | null;
  }[];
};

function DetailBody({ delivery: d }: { delivery: Detail }) {
  return (
    <div className="space-y-5" data-status={d.status}>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-slate-500 dark:text-slate-400">Status</dt>
        <dd>
          <StatusBadge status={d.status} data-testid="delivery-detail-status" />
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">Event id</dt>
        <dd className="break-all font-mono text-xs leading-5">{d.eventId}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Call SID</dt>
        <dd className="break-all font-mono text-xs leading-5">{d.callSid ?? "—"}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Destination</dt>
        <dd data-testid="delivery-detail-destination">
          {destinationOf(d)}
          {d.endpointId ? <span className="ml-2 font-mono text-xs text-slate-500">{d.endpointId}</span> : null}
        </dd>
        <dt className="text-slate-500 dark:text-slate-400">URL</dt>
        <dd className="break-all font-mono text-xs leading-5">{d.url}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Attempts</dt>
        <dd>{d.attemptCount}</dd>
        {d.synchronous ? (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Answer used</dt>
            <dd data-testid="delivery-answer-use">
              <CodeLabel code={d.answerUse} />
              <span className="block text-xs text-slate-500 dark:text-slate-400">
                Sent while Twilio waited; its answer decided the call, so it is never redelivered.
              </span>
            </dd>
          </>
        ) : null}
        <dt className="text-slate-500 dark:text-slate-400">Created</dt>
        <dd>
          <LocalTime iso={d.createdAt} />
        </dd>
        {d.deliveredAt ? (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Delivered</dt>
            <dd>
              <LocalTime iso={d.deliveredAt} />
            </dd>
          </>
        ) : null}
        {d.status === "PENDING" && d.nextAttemptAt ? (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Next attempt</dt>
            <dd>
              <LocalTime iso={d.nextAttemptAt} />
              <EndpointBackoffNotice until={d.endpointBackoffUntil} />
            </dd>
          </>
        ) : null}
      </dl>

      <section>
        <h3 className="text-sm font-semibold text-slate-900 dark:text-slate-100">Payload</h3>
        <ScrollPre
          data-testid="delivery-payload"
          className="mt-2 max-h-96 overflow-auto rounded-md bg-slate-900 p-3 font-mono text-xs leading-5 text-slate-100"
        >
          {JSON.stringify(d.payload, null, 2)}
        </ScrollPre>
      </section>

      <section>
        <h3 className="text-sm font-semibold text-slate-900 dark:text-slate-100">{`Attempts (${d.attempts.length})`}</h3>
        {d.attempts.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
            No attempts yet: the first one is on its way.
          </p>
        ) : (
          <ol className="mt-2 space-y-3">
            {d.attempts.map((a) => {
              const ok = a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;
              return (
                <li
                  key={a.id}
                  data-testid="delivery-attempt"
                  className="rounded-lg border border-slate-200 dark:border-slate-700 p-3 text-sm"
                >
                  <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
                    <span className="font-medium text-slate-900 dark:text-slate-100">
                      <LocalTime iso={a.attemptedAt} />
                    </span>
                    <span
                      className={`font-mono text-xs font-semibold ${ok ? "text-green-700 dark:text-green-300" : "text-red-700 dark:text-red-300"}`}
                      data-testid="attempt-outcome"
                    >
                      {attemptOutcome(a)}
                    </span>
                    <span className="text-xs text-slate-500 dark:text-slate-400">{`${a.latencyMs} ms`}</span>
                  </div>
                  {a.statusCode !== null && a.error ? (
                    <p className="mt-1 text-xs text-red-700 dark:text-red-300">{a.error}</p>
                  ) : null}
                  {a.url !== d.url ? (
                    <p className="mt-1 break-all font-mono text-xs text-slate-500 dark:text-slate-400">{`Sent to ${a.url}`}</p>
                  ) : null}
                  {a.responseExcerpt ? (
                    <ScrollPre className="mt-2 max-h-40 overflow-auto whitespace-pre-wrap break-all rounded-md bg-slate-50 dark:bg-slate-800/60 p-2 font-mono text-xs text-slate-700 dark:text-slate-300">
                      {a.responseExcerpt}
                    </ScrollPre>
                  ) : (
                    <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">No response body.</p>
                  )}
                </li>
              );
            })}
          </ol>
        )}
      </section>
    </div>
  );
}
