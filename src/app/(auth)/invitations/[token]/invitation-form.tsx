"use client";

import Link from "next/link";
import { useRef } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { useApiForm } from "@/client/use-api-form";
import { ROLE_DESCRIPTIONS, ROLE_LABELS } from "@/shared/roles";
import {
  ZAcceptInvitationSignInInput,
  ZAcceptInvitationSignUpInput,
  type TInvitationPreview,
} from "@/shared/schemas/members";

const NOT_USABLE: Record<Exclude<TInvitationPreview["state"], "pending">, string> = {
  unknown: "This invitation link is not valid. Ask the account's owner or an admin for a new invitation.",
  accepted: "This invitation was already used. Log in to reach the account.",
  revoked:
    "This invitation was withdrawn or replaced by a newer one. Use the newest mail, or ask for a new invitation.",
  expired: "This invitation expired (links work for 7 days). Ask for a new invitation.",
};

/**
 * Always a plain form post to /invitations/{token}/submit, which accepts, sets the session cookie and goes to
 * the dashboard; with JavaScript the password is checked against the API's own schema first.
 */
export function InvitationForm(props: { token: string; preview: TInvitationPreview; error: string | null }) {
  const { preview } = props;
  const signUp = !preview.hasLogin;
  const formRef = useRef<HTMLFormElement>(null);
  const { form, field, formError, onSubmit } = useApiForm({
    schema: signUp ? ZAcceptInvitationSignUpInput : ZAcceptInvitationSignInInput,
    names: { password: "Password" },
    defaultValues: { token: props.token, password: "" },
    alert: true,
    initialError: props.error,
  });
  // Valid: the browser posts the form itself, so the answer's cookie and redirect apply as without JavaScript.
  const submit = onSubmit(() => formRef.current?.submit());

  if (preview.state !== "pending" || !preview.role || !preview.email) {
    return (
      <Card title="Join an account">
        <Alert tone="error" data-testid="invitation-unusable">
          {NOT_USABLE[preview.state === "pending" ? "unknown" : preview.state]}
        </Alert>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <Link href="/login" className="font-semibold text-indigo-600 hover:text-indigo-500">
            Log in
          </Link>
        </p>
      </Card>
    );
  }
  return (
    <Card title={`Join ${preview.accountName}`}>
      <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="invitation-summary">
        You are invited to join <strong>{preview.accountName}</strong> on Routekit as{" "}
        <strong>{ROLE_LABELS[preview.role]}</strong>: {ROLE_DESCRIPTIONS[preview.role]}
      </p>
      <form
        ref={formRef}
        method="post"
        action={`/invitations/${encodeURIComponent(props.token)}/submit`}
        onSubmit={(e) => {
          e.preventDefault();
          void submit(e);
        }}
        className="space-y-4"
        noValidate
      >
        <input type="hidden" name="mode" value={signUp ? "sign-up" : "sign-in"} />
        <TextField label="Email" type="email" value={preview.email} readOnly autoComplete="username" />
        <TextField
          label={signUp ? "Choose a password" : "Your password"}
          type="password"
          autoComplete={signUp ? "new-password" : "current-password"}
          required
          hint={signUp ? "At least 8 characters. This creates your Routekit sign-in for this address." : undefined}
          {...field("password")}
        />
        {formError ? (
          <Alert tone="error" data-testid="invitation-error">
            {formError}
          </Alert>
        ) : null}
        <Button type="submit" loading={form.formState.isSubmitting} className="w-full">
          {signUp ? "Create my sign-in and join" : "Sign in and join"}
        </Button>
      </form>
    </Card>
  );
}
