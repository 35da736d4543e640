"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { ZRequestPasswordResetInput } from "@/shared/schemas/account-settings";

const RESET_SENT =
  "If an account uses that address, we sent it a link to choose a new password. It works for one hour. Nothing arrived? Check the spam folder, or ask again in a few minutes.";

/** Asks for a reset link; the answer is the same whether or not the address has an account. Posts to /forgot-password/send without JavaScript. */
export function ForgotPasswordForm(props: { sent: boolean; error: string | null }) {
  const trpc = useTRPC();
  const request = useMutation(trpc.settings.requestPasswordReset.mutationOptions());
  const [sent, setSent] = useState(props.sent);
  const { field, formError, fail, onSubmit } = useApiForm({
    schema: ZRequestPasswordResetInput,
    names: { email: "Email" },
    defaultValues: { email: "" },
    alert: true,
    initialError: props.error,
  });
  const submit = onSubmit(async (values) => {
    try {
      await request.mutateAsync(values);
      setSent(true);
    } catch (err) {
      fail(err);
    }
  });
  return (
    <Card title="Reset your password">
      {sent ? (
        <Alert tone="success" data-testid="reset-requested">
          {RESET_SENT}
        </Alert>
      ) : (
        <form
          method="post"
          action="/forgot-password/send"
          onSubmit={(e) => void submit(e)}
          className="space-y-4"
          noValidate
        >
          <p className="text-sm text-slate-600">
            Enter your account&apos;s email address and we will mail you a link to choose a new password.
          </p>
          <TextField label="Email" type="email" autoComplete="email" required {...field("email")} />
          {formError ? <Alert tone="error">{formError}</Alert> : null}
          <Button type="submit" loading={request.isPending} className="w-full">
            Send the link
          </Button>
        </form>
      )}
      <p className="text-sm text-slate-600">
        <Link href="/login" className="font-semibold text-indigo-600 hover:text-indigo-500">
          Back to log-in
        </Link>
      </p>
    </Card>
  );
}
