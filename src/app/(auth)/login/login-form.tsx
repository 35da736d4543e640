"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { safeRedirectPath } from "@/shared/safe-redirect";
import { useApiForm } from "@/client/use-api-form";
import { ZLoginInput } from "@/shared/schemas/auth";

const NEXT_AUTH_ERRORS: Record<string, string> = { CredentialsSignin: "Invalid email or password." };

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
}) {
  const router = useRouter();
  const returnTo = safeRedirectPath(props.callbackUrl);
  const { form, field, formError, setFormError, onSubmit } = useApiForm({
    schema: ZLoginInput,
    names: { email: "Email", password: "Password" },
    defaultValues: { email: props.email, password: "" },
    alert: true,
    initialError: props.error,
  });
  const { errors, isSubmitting } = form.formState;

  // next-auth's client answers with its own error names, not the API's errors, so they are mapped here.
  const submit = onSubmit(async (values) => {
    const result = await signIn("credentials", { redirect: false, email: values.email, password: values.password });
    if (result?.ok && !result.error) {
      router.replace(returnTo);
      router.refresh();
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
