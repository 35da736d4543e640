"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { errorsFromDetails, errorsFromIssues, focusFirstInvalid, type FieldErrors } from "@/lib/field-errors";
import { appErrorOf, messageOf, useTRPC } from "@/lib/trpc/client";
import { ZConnectTwilioInput } from "@/server/schemas/twilio-connection";

type Field = "accountSid" | "authToken";
const FIELD_NAMES: Record<Field, string> = { accountSid: "Account SID", authToken: "Auth token" };

/** Checked by the API against Twilio; validated here first with the API's own schema. */
export function ConnectTwilioForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const formRef = useRef<HTMLFormElement>(null);
  const [values, setValues] = useState<Record<Field, string>>({ accountSid: "", authToken: "" });
  const [errors, setErrors] = useState<FieldErrors<Field>>({});
  const [formError, setFormError] = useState<string | null>(null);

  const connect = useMutation(
    trpc.twilioConnection.connect.mutationOptions({
      onSuccess: async ({ twilioConnection }) => {
        toast.success(`Connected to ${twilioConnection.friendlyName ?? twilioConnection.accountSid}`);
        setValues({ accountSid: "", authToken: "" });
        queryClient.setQueryData(trpc.twilioConnection.get.queryKey(), { twilioConnection });
        await queryClient.invalidateQueries({ queryKey: trpc.phoneNumbers.list.queryKey() });
      },
      onError: (err) => {
        const appError = appErrorOf(err);
        setFormError(appError?.message ?? messageOf(err));
        setErrors(errorsFromDetails(FIELD_NAMES, appError?.details));
        focusFirstInvalid(formRef.current);
      },
    }),
  );

  function field(name: Field) {
    return {
      name,
      value: values[name],
      error: errors[name],
      onChange: (e: { target: { value: string } }) => {
        const value = e.target.value;
        setValues((v) => ({ ...v, [name]: value }));
        if (errors[name]) setErrors((x) => ({ ...x, [name]: undefined }));
      },
    };
  }

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setFormError(null);
    const parsed = ZConnectTwilioInput.safeParse(values);
    if (!parsed.success) {
      setErrors(errorsFromIssues(FIELD_NAMES, parsed.error.issues));
      focusFirstInvalid(formRef.current);
      return;
    }
    setErrors({});
    connect.mutate(parsed.data);
  }

  return (
    <form ref={formRef} onSubmit={submit} noValidate data-testid="twilio-connect-form" className="space-y-4">
      {formError ? (
        <Alert tone="error" title="Twilio was not connected" data-testid="twilio-connect-error">
          {formError}
        </Alert>
      ) : null}
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Both are on the Twilio console&apos;s home page, under Account Info. The auth token is stored encrypted and never shown again. Numbers in a Twilio
        subaccount are signed with that subaccount&apos;s own token: connect the subaccount that holds your numbers.
      </p>
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <TextField label="Account SID" placeholder="AC…" autoComplete="off" spellCheck={false} hint="AC followed by 32 characters" {...field("accountSid")} />
        <TextField label="Auth token" type="password" autoComplete="off" spellCheck={false} hint="Checked with Twilio before it is saved" {...field("authToken")} />
      </div>
      <div className="flex justify-end">
        <Button type="submit" loading={connect.isPending} className="w-full sm:w-auto">
          Connect Twilio
        </Button>
      </div>
    </form>
  );
}
