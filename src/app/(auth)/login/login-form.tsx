"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { safeRedirectPath } from "@/lib/safe-redirect";
import { ZLoginInput } from "@/server/schemas/auth";
import { fieldBinder } from "@/lib/form-field";

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
  const [error, setError] = useState<string | null>(props.error);
  const form = useForm({ resolver: zodResolver(ZLoginInput), defaultValues: { email: props.email, password: "" } });
  const field = fieldBinder(form);
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    setError(null);
    const result = await signIn("credentials", { redirect: false, email: values.email, password: values.password });
    if (result?.ok && !result.error) {
      router.replace(returnTo);
      router.refresh();
      return;
    }
    setError(result?.error ? (NEXT_AUTH_ERRORS[result.error] ?? result.error) : "Log-in failed; try again.");
  });

  return (
    <Card title="Log in">
      {props.callbackUrl ? <p className="text-sm text-slate-600">Log in to see that page.</p> : null}
      {props.notice ? (
        <Alert tone="success" data-testid="login-notice">
          {props.notice}
        </Alert>
      ) : null}
      <form method="post" action="/login/submit" onSubmit={(e) => void onSubmit(e)} className="space-y-4" noValidate>
        <input type="hidden" name="callbackUrl" value={returnTo} />
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          required
          defaultValue={props.email}
          {...field("email", { subject: "Email" })}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          {...field("password")}
          error={errors.password && "Enter your password"}
        />
        {error ? (
          <Alert tone="error" data-testid="login-error">
            {error}
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
