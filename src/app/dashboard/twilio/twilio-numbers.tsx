"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { Table, Td } from "@/components/ui/table";
import { useToast } from "@/client/toast";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { useForbiddenReason } from "@/client/use-forbidden-reason";
import { useRole } from "@/client/use-role";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { callbackUrlsFormSchema, type UrlFormValues } from "../numbers/number-form-schemas";
import { CallbackUrlFields } from "../numbers/callback-url-fields";

type UrlField = "onCallStartUrl" | "onCallEndUrl" | "onErrorUrl";
const URL_FIELD_NAMES: Record<UrlField, string> = {
  onCallStartUrl: "Call start URL",
  onCallEndUrl: "Call end URL",
  onErrorUrl: "Error URL",
};

/**
 * The connected account's numbers at Twilio. Registering one takes the
 * callback URLs above (prefilled from the newest number already registered),
 * so each number is one click.
 */
export function TwilioNumbers({ policy }: { policy: CallbackUrlPolicyOptions }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const numbers = useQuery(trpc.twilioConnection.numbers.queryOptions());
  const registered = useQuery(trpc.phoneNumbers.list.queryOptions());
  const { allowPrivate } = policy;
  const registerForbidden = useForbiddenReason("registerNumber");
  const changeForbidden = useForbiddenReason("changeNumber");
  const roleForbidden = useRole().reasonFor("write", "change numbers");
  const schema = useMemo(() => callbackUrlsFormSchema({ allowPrivate }), [allowPrivate]);

  const newest = registered.data?.phoneNumbers.at(-1);
  // Prefilled from the newest registered number once it loads; what the customer typed stays.
  const prefill: UrlFormValues = {
    onCallStartUrl: newest?.onCallStartUrl ?? "",
    onCallEndUrl: newest?.onCallEndUrl ?? "",
    onErrorUrl: newest?.onErrorUrl ?? "",
  };
  const {
    form,
    field,
    formError: actionError,
    setFormError: setActionError,
    fail: onError,
  } = useApiForm({
    schema,
    names: URL_FIELD_NAMES,
    values: prefill,
    resetOptions: { keepDirtyValues: true },
    alert: true,
  });
  const [busy, setBusy] = useState<string | null>(null);

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.twilioConnection.numbers.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() }),
    ]);
  const create = useMutation(trpc.phoneNumbers.create.mutationOptions({ onError, onSettled: () => setBusy(null) }));
  const configure = useMutation(trpc.phoneNumbers.update.mutationOptions({ onError, onSettled: () => setBusy(null) }));

  function register(phoneNumber: string) {
    setActionError(null);
    void form.handleSubmit(
      (urls) => {
        setBusy(phoneNumber);
        create.mutate(
          { ...urls, phoneNumber },
          {
            onSuccess: async ({ phoneNumber: n }) => {
              toast.success(`${n.phoneNumber} registered and set up at Twilio`);
              await refresh();
            },
          },
        );
      },
      () => setActionError("Fill in the callback URLs your numbers send events to, then register."),
    )();
  }

  function setUp(phoneNumber: string) {
    const n = registered.data?.phoneNumbers.find((x) => x.phoneNumber === phoneNumber);
    if (!n) return;
    setActionError(null);
    setBusy(phoneNumber);
    configure.mutate(
      { id: n.id, configureTwilio: true },
      {
        onSuccess: async () => {
          toast.success(`${phoneNumber} now points at your engine URL`);
          await refresh();
        },
      },
    );
  }

  return (
    <Panel title="Your Twilio numbers" data-testid="twilio-numbers">
      <div className="space-y-4">
        {/* The URLs only serve registering: closed to a role that may not (not to an account that must pay first). */}
        <fieldset disabled={roleForbidden !== null} className="grid grid-cols-1 gap-4 md:grid-cols-3">
          <CallbackUrlFields
            field={field}
            policy={policy}
            hints={{
              onCallStartUrl: "For numbers you register here.",
              onCallEndUrl: "Receives call.ended.",
              onErrorUrl: "Receives call.error.",
            }}
          />
        </fieldset>
        {numbers.data && numbers.data.subaccounts.length > 0 ? (
          <Alert tone="info" title="This Twilio account has subaccounts" data-testid="twilio-subaccounts">
            {`Numbers held in a subaccount (${numbers.data.subaccounts.map((a) => a.friendlyName).join(", ")}) are not listed here: Twilio signs their calls with the subaccount's own auth token. To use them, connect that subaccount instead (one Twilio connection per Routekit account).`}
          </Alert>
        ) : null}
        <ForbiddenReason reason={registerForbidden} id="twilio-register-forbidden" />
        {actionError ? (
          <Alert tone="error" title="Not done" data-testid="twilio-numbers-error">
            {actionError}
          </Alert>
        ) : null}
        <QueryState
          query={numbers}
          loadingLabel="Asking Twilio for your numbers…"
          empty={(data) =>
            data.numbers.length === 0 ? (
              <EmptyState title="No numbers in this Twilio account">
                Buy a number in the Twilio console, then come back here to register it.
              </EmptyState>
            ) : null
          }
        >
          {(data) => (
            <Table head={["Number", "Name", "State", ""]} data-testid="twilio-number-table">
              {data.numbers.map((n) => (
                <tr key={n.sid} data-testid="twilio-number-row" data-phone-number={n.phoneNumber}>
                  <Td label="Number" className="font-mono font-semibold text-slate-900 dark:text-slate-100">
                    {n.phoneNumber}
                  </Td>
                  <Td label="Name" className="text-slate-600 dark:text-slate-400">
                    {n.friendlyName}
                  </Td>
                  <Td label="State">
                    <span className="flex flex-wrap gap-1">
                      {n.registered ? <Badge tone="green">registered</Badge> : <Badge>not registered</Badge>}
                      {n.configured ? (
                        <Badge tone="green">configured</Badge>
                      ) : n.voiceUrl ? (
                        <Badge tone="amber">points elsewhere</Badge>
                      ) : (
                        <Badge>no voice URL</Badge>
                      )}
                    </span>
                  </Td>
                  <Td className="text-right">
                    {!n.registered ? (
                      <Button
                        size="sm"
                        loading={busy === n.phoneNumber}
                        disabled={busy !== null || registerForbidden !== null}
                        aria-describedby={registerForbidden ? "twilio-register-forbidden" : undefined}
                        onClick={() => register(n.phoneNumber)}
                      >
                        Register and configure
                      </Button>
                    ) : !n.configured ? (
                      <Button
                        size="sm"
                        variant="secondary"
                        loading={busy === n.phoneNumber}
                        disabled={busy !== null || changeForbidden !== null}
                        aria-describedby={changeForbidden ? "twilio-register-forbidden" : undefined}
                        onClick={() => setUp(n.phoneNumber)}
                      >
                        Point at Routekit
                      </Button>
                    ) : null}
                  </Td>
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
      </div>
    </Panel>
  );
}
