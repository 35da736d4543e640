"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { apiSchemaResolver } from "@/lib/api-schema-resolver";
import { useShowError } from "@/lib/show-error";
import { useTRPC } from "@/lib/trpc/client";
import { ZConnectTwilioInput } from "@/server/schemas/twilio-connection";
import { fieldBinder } from "@/lib/form-field";

type Field = "accountSid" | "authToken";
const FIELD_NAMES: Record<Field, string> = { accountSid: "Account SID", authToken: "Auth token" };
const EMPTY: Record<Field, string> = { accountSid: "", authToken: "" };

/** Checked by the API against Twilio; validated here first with the API's own schema. */
export function ConnectTwilioForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const showError = useShowError();
  const form = useForm({ resolver: apiSchemaResolver(ZConnectTwilioInput, FIELD_NAMES), defaultValues: EMPTY });
  const field = fieldBinder(form);
  const [formError, setFormError] = useState<string | null>(null);

  const connect = useMutation(
    trpc.twilioConnection.connect.mutationOptions({
      onSuccess: async ({ twilioConnection }) => {
        toast.success(`Connected to ${twilioConnection.friendlyName ?? twilioConnection.accountSid}`);
        form.reset(EMPTY);
        queryClient.setQueryData(trpc.twilioConnection.get.queryKey(), { twilioConnection });
        await queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() });
      },
      // Twilio refusing the credentials is the action's failure: one alert above the form.
      onError: (err) =>
        showError(err, {
          fields: {
            names: FIELD_NAMES,
            set: (name, message) => form.setError(name as Field, { message }, { shouldFocus: true }),
          },
          inline: setFormError,
        }),
    }),
  );

  const submit = form.handleSubmit((input) => {
    setFormError(null);
    connect.mutate(input);
  });

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
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
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
      </div>
      <div className="flex justify-end">
        <Button type="submit" loading={connect.isPending} className="w-full sm:w-auto">
          Connect Twilio
        </Button>
      </div>
    </form>
  );
}
