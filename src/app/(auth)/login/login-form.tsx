"use client";

import Link from "next/link";
import { useState } from "react";
import { useRouter } from "next/navigation";
import { z } from "zod";
import { signIn } from "next-auth/react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { safeRedirectPath } from "@/shared/safe-redirect";
import { useApiForm } from "@/client/use-api-form";
import { ZLoginInput } from "@/shared/schemas/auth";
import { TWO_FACTOR_PROMPT, TWO_FACTOR_REQUIRED } from "@/shared/second-factor";

const NEXT_AUTH_ERRORS: Record<string, string> = { CredentialsSignin: "Invalid email or password." };

/** The API's schema, with its two second-factor fields as the one box the form shows (split on the server). */
const ZLoginForm = ZLoginInput.pick({ email: true, password: true }).extend({
  code: z.string().trim().max(40, { message: "is not a two-factor code" }).optional(),
});

/**
 * Without JavaScript the form posts to /login/submit, which signs in and
 * redirects; once JavaScript runs, it validates with the API's schema and
 * signs in through next-auth's client without leaving the page.
 */
export function LoginForm(props: {
  callbackUrl: string | null;
  email: string;
  error: string | null;
  notice: string | null;
  /** The password was right and the user has two-factor on: ask for the code too. */
  twoFactor: boolean;
}) {
  const router = useRouter();
  const [twoFactor, setTwoFactor] = useState(props.twoFactor);
  const returnTo = safeRedirectPath(props.callbackUrl);
  const { form, field, formError, setFormError, onSubmit } = useApiForm({
    schema: ZLoginForm,
    names: { email: "Email", password: "Password", code: "Two-factor code" },
    defaultValues: { email: props.email, password: "", code: "" },
    alert: true,
    initialError: props.error,
  });
  const { errors, isSubmitting } = form.formState;

  // next-auth's client answers with its own error names, not the API's errors, so they are mapped here.
  const submit = onSubmit(async (values) => {
    const result = await signIn("credentials", {
      redirect: false,
      email: values.email,
      password: values.password,
      code: values.code ?? "",
    });
    if (result?.ok && !result.error) {
      router.replace(returnTo);
      router.refresh();
      return;
    }
    // The password was right; the form keeps it (in memory only) and asks for the code beside it.
    if (result?.error === TWO_FACTOR_REQUIRED) {
      setTwoFactor(true);
      setFormError(TWO_FACTOR_PROMPT);
      return;
    }
    setFormError(result?.error ? (NEXT_AUTH_ERRORS[result.error] ?? result.error) : "Log-in failed; try again.");
  });

  return (
    <Card title="Log in">
      {props.callbackUrl ? <p className="text-sm text-slate-600">Log in to see that page.</p> : null}
      {props.notice ? (
        <Alert tone="success" data-testid="login-notice">
          {props.notice}
        </Alert>
      ) : null}
      <form method="post" action="/login/submit" onSubmit={(e) => void submit(e)} className="space-y-4" noValidate>
        <input type="hidden" name="callbackUrl" value={returnTo} />
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          required
          defaultValue={props.email}
          {...field("email")}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          {...field("password")}
          error={errors.password && "Enter your password"}
        />
        {twoFactor ? (
          <TextField
            label="Two-factor code"
            inputMode="text"
            autoComplete="one-time-code"
            autoCapitalize="none"
            spellCheck={false}
            hint="The 6-digit code from your authenticator app, or one of your recovery codes."
            // The one thing left to type once the password was right.
            autoFocus
            {...field("code")}
          />
        ) : null}
        {formError ? (
          <Alert tone="error" data-testid="login-error">
            {formError}
          </Alert>
        ) : null}
        <Button type="submit" loading={isSubmitting} className="w-full">
          Log in
        </Button>
      </form>
      <p className="text-sm text-slate-600">
        <Link href="/forgot-password" className="font-semibold text-indigo-600 hover:text-indigo-500">
          Forgot password?
        </Link>
      </p>
      <p className="text-sm text-slate-600">
        {`No account yet? `}
        <Link href="/signup" className="font-semibold text-indigo-600 hover:text-indigo-500">
          Sign up
        </Link>
      </p>
    </Card>
  );
}
