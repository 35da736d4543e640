"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { ZResetPasswordInput } from "@/shared/schemas/account-settings";

/** The new password from the mailed link. Posts to /reset-password/submit without JavaScript. */
export function ResetPasswordForm(props: { token: string; error: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const reset = useMutation(trpc.settings.resetPassword.mutationOptions());
  // The token is not a named field: a refused link is the form's alert, not an error under a hidden input.
  const { form, field, formError, fail, onSubmit } = useApiForm({
    schema: ZResetPasswordInput,
    names: { password: "Password" },
    defaultValues: { token: props.token, password: "" },
    alert: true,
    initialError: props.error,
  });
  const submit = onSubmit(async (values) => {
    try {
      await reset.mutateAsync(values);
      router.replace("/login?notice=password-reset");
    } catch (err) {
      fail(err);
    }
  });
  const { errors } = form.formState;
  return (
    <Card title="Choose a new password">
      {!props.token ? (
        <Alert tone="error">This page needs the link from the reset mail.</Alert>
      ) : (
        <form
          method="post"
          action="/reset-password/submit"
          onSubmit={(e) => void submit(e)}
          className="space-y-4"
          noValidate
        >
          {/* defaultValue puts it in the server HTML; react-hook-form fills values only once scripts run. */}
          <input type="hidden" defaultValue={props.token} {...form.register("token")} />
          <TextField
            label="New password"
            type="password"
            autoComplete="new-password"
            required
            hint="At least 8 characters. Every session of the account ends."
            {...field("password")}
          />
          {formError || errors.token ? (
            <Alert tone="error" data-testid="reset-error">
              {formError ?? "This link is not valid. Ask for a new one."}
            </Alert>
          ) : null}
          <Button type="submit" loading={reset.isPending} className="w-full">
            Set the new password
          </Button>
        </form>
      )}
      <p className="text-sm text-slate-600">
        <Link href="/forgot-password" className="font-semibold text-indigo-600 hover:text-indigo-500">
          Ask for a new link
        </Link>
      </p>
    </Card>
  );
}
