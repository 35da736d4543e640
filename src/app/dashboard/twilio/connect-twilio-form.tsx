"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { useRole } from "@/client/use-role";
import { ZConnectTwilioInput } from "@/shared/schemas/twilio-connection";

type Field = "accountSid" | "authToken";
const FIELD_NAMES: Record<Field, string> = { accountSid: "Account SID", authToken: "Auth token" };
const EMPTY: Record<Field, string> = { accountSid: "", authToken: "" };

/** Checked by the API against Twilio; validated here first with the API's own schema. */
export function ConnectTwilioForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const forbidden = useRole().reasonFor("admin", "connect Twilio");
  const { form, field, formError, fail, onSubmit } = useApiForm({
    schema: ZConnectTwilioInput,
    names: FIELD_NAMES,
    defaultValues: EMPTY,
    alert: true,
  });

  const connect = useMutation(
    trpc.twilioConnection.connect.mutationOptions({
      onSuccess: async ({ twilioConnection }) => {
        toast.success(`Connected to ${twilioConnection.friendlyName ?? twilioConnection.accountSid}`);
        form.reset(EMPTY);
        queryClient.setQueryData(trpc.twilioConnection.get.queryKey(), { twilioConnection });
        await queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() });
      },
      // Twilio refusing the credentials is the action's failure: one alert above the form.
      onError: fail,
    }),
  );

  const submit = onSubmit((input) => connect.mutate(input));

  return (
    <form onSubmit={submit} noValidate data-testid="twilio-connect-form" className="space-y-4">
      {formError ? (
        <Alert tone="error" title="Twilio was not connected" data-testid="twilio-connect-error">
          {formError}
        </Alert>
      ) : null}
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Both are on the Twilio console&apos;s home page, under Account Info. The auth token is stored encrypted and
        never shown again. Numbers in a Twilio subaccount are signed with that subaccount&apos;s own token: connect the
        subaccount that holds your numbers.
      </p>
      <fieldset disabled={forbidden !== null} className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <TextField
          label="Account SID"
          placeholder="AC…"
          autoComplete="off"
          spellCheck={false}
          hint="AC followed by 32 characters"
          {...field("accountSid")}
        />
        <TextField
          label="Auth token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          hint="Checked with Twilio before it is saved"
          {...field("authToken")}
        />
      </fieldset>
      <div className="flex flex-col items-stretch gap-2 sm:flex-row sm:items-center sm:justify-end">
        <ForbiddenReason reason={forbidden} id="twilio-connect-forbidden" />
        <Button
          type="submit"
          loading={connect.isPending}
          disabled={forbidden !== null}
          aria-describedby={forbidden ? "twilio-connect-forbidden" : undefined}
          className="w-full sm:w-auto"
        >
          Connect Twilio
        </Button>
      </div>
    </form>
  );
}
