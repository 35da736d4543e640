"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { TextField } from "@/components/ui/field";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";
import { useShowError } from "@/client/show-error";
import { useRole } from "@/client/use-role";
import type { TCall } from "@/shared/schemas/calls";
import { E164 } from "@/shared/schemas/e164";

/** Live calls follow without a reload. */
const POLL_MS = 2_000;
const SIP = /^sips?:\S+$/i;

/**
 * The calls that have not ended, at the top of Calls (docs/decisions.md §13), each with Hang up, Transfer
 * and Record. Hanging up and transferring cannot be undone: both ask first. Each command's result opens
 * the call, whose timeline shows it (who, what, Twilio's answer, latency).
 */
export function LiveCalls({ onOpen }: { onOpen: (callSid: string) => void }) {
  const trpc = useTRPC();
  // Call control is a write (docs/decisions.md §18): said once above the calls, each button points at it.
  const forbidden = useRole().reasonFor("write", "control calls");
  // Inbound calls report only their end, so a live one still reads `ringing`; outbound ones `in-progress`.
  const inProgress = useQuery({
    ...trpc.calls.list.queryOptions({ status: "in-progress", limit: 25 }),
    refetchInterval: POLL_MS,
  });
  const ringing = useQuery({
    ...trpc.calls.list.queryOptions({ status: "ringing", limit: 25 }),
    refetchInterval: POLL_MS,
  });
  const calls = [...(inProgress.data?.calls ?? []), ...(ringing.data?.calls ?? [])].sort((a, b) =>
    b.startedAt.localeCompare(a.startedAt),
  );
  if (calls.length === 0) return null;
  return (
    <Panel title={`Live calls (${calls.length})`} data-testid="live-calls">
      <ForbiddenReason reason={forbidden} id="call-control-forbidden" />
      <ul className="divide-y divide-slate-200 dark:divide-slate-700">
        {calls.map((c) => (
          <LiveCall key={c.callSid} call={c} onOpen={onOpen} forbidden={forbidden} />
        ))}
      </ul>
    </Panel>
  );
}

function LiveCall({
  call,
  onOpen,
  forbidden,
}: {
  call: TCall;
  onOpen: (callSid: string) => void;
  forbidden: string | null;
}) {
  const closed = { disabled: forbidden !== null, "aria-describedby": forbidden ? "call-control-forbidden" : undefined };
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const showError = useShowError();
  const [transferOpen, setTransferOpen] = useState(false);
  const [to, setTo] = useState("");
  const [whisper, setWhisper] = useState("");
  const [toError, setToError] = useState<string | null>(null);
  const refresh = async () => {
    await queryClient.invalidateQueries(trpc.calls.pathFilter());
    onOpen(call.callSid);
  };
  const hangup = useConfirmedMutation(trpc.calls.hangup.mutationOptions(), {
    variablesOf: () => ({ callSid: call.callSid }),
    onSuccess: async () => {
      toast.success("Hung up");
      await refresh();
    },
  });
  const transfer = useConfirmedMutation(trpc.calls.transfer.mutationOptions(), {
    variablesOf: () => ({
      callSid: call.callSid,
      to: to.trim(),
      timeout: 20,
      ...(whisper.trim() && { whisper: whisper.trim() }),
    }),
    onSuccess: async () => {
      toast.success(`Transferring to ${to.trim()}`);
      setTransferOpen(false);
      await refresh();
    },
  });
  const record = useMutation(
    trpc.calls.recording.mutationOptions({
      onSuccess: async (data) => {
        toast.success(`Recording ${data.recording.status}`);
        await refresh();
      },
      onError: (err) => showError(err),
    }),
  );

  return (
    <li className="py-3" data-testid="live-call" data-call-sid={call.callSid}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <button
          type="button"
          className="min-w-0 text-left text-sm"
          onClick={() => onOpen(call.callSid)}
          aria-label={`Open call ${call.callSid}`}
        >
          <span className="block font-medium text-slate-900 dark:text-slate-100">{`${call.from} → ${call.to}`}</span>
          <span className="block break-all font-mono text-xs text-slate-500 dark:text-slate-400">{`${call.direction} · ${call.callSid}`}</span>
        </button>
        <div className="flex flex-wrap gap-2">
          <Button variant="danger" size="sm" {...closed} onClick={() => hangup.ask()} data-testid="live-hangup">
            Hang up
          </Button>
          <Button
            variant="secondary"
            size="sm"
            {...closed}
            onClick={() => setTransferOpen((o) => !o)}
            aria-expanded={transferOpen}
            data-testid="live-transfer"
          >
            Transfer
          </Button>
          <Button
            variant="secondary"
            size="sm"
            loading={record.isPending}
            {...closed}
            onClick={() => record.mutate({ callSid: call.callSid, action: "start", channels: "dual" })}
            data-testid="live-record"
          >
            Record
          </Button>
          <Button
            variant="secondary"
            size="sm"
            {...closed}
            onClick={() => record.mutate({ callSid: call.callSid, action: "stop", channels: "dual" })}
            data-testid="live-record-stop"
          >
            Stop recording
          </Button>
        </div>
      </div>
      {transferOpen && !forbidden ? (
        <form
          className="mt-3 grid grid-cols-1 gap-3 sm:grid-cols-[1fr_2fr_auto] sm:items-start"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const target = to.trim();
            if (!E164.test(target) && !SIP.test(target)) {
              setToError("An E.164 number (+14155550123) or a sip: URI");
              return;
            }
            setToError(null);
            transfer.ask();
          }}
          data-testid="transfer-form"
        >
          <TextField
            label="Transfer to"
            placeholder="+14155550123"
            value={to}
            onChange={(e) => setTo(e.target.value)}
            error={toError}
            data-testid="transfer-to"
          />
          <TextField
            label="Whisper (said to the callee first)"
            placeholder="Caller asking about order A-17"
            value={whisper}
            onChange={(e) => setWhisper(e.target.value)}
            maxLength={1000}
            data-testid="transfer-whisper"
          />
          <Button type="submit" className="sm:mt-6" data-testid="transfer-submit">
            Transfer
          </Button>
        </form>
      ) : null}
      <ConfirmDialog {...hangup.dialog} title="Hang up this call?" confirmLabel="Hang up">
        {`The call from ${call.from} to ${call.to} ends now for everyone on it. This cannot be undone.`}
      </ConfirmDialog>
      <ConfirmDialog {...transfer.dialog} title="Transfer this call?" confirmLabel="Transfer" tone="primary">
        {`The caller is connected to ${to.trim()}${whisper.trim() ? ", who hears your whisper first" : ""}. If nobody answers, the caller hears the apology instead of being dropped. This cannot be undone.`}
      </ConfirmDialog>
    </li>
  );
}
