"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { safeReturnPath } from "@/lib/format";

/** next-auth's own error codes, for when it fails before our procedure answers. */
const NEXT_AUTH_ERRORS: Record<string, string> = {
  CredentialsSignin: "Invalid email or password.",
  SessionRequired: "Log in to continue.",
};

export function LoginForm() {
  const router = useRouter();
  const params = useSearchParams();
  const returnTo = safeReturnPath(params.get("callbackUrl"));
  const [error, setError] = useState<string | null>(params.get("error") ? (NEXT_AUTH_ERRORS[params.get("error")!] ?? params.get("error")) : null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn("credentials", { redirect: false, email: String(form.get("email")), password: String(form.get("password")) });
    if (result?.ok && !result.error) {
      router.replace(returnTo);
      router.refresh();
      return;
    }
    setBusy(false);
    setError(result?.error ? (NEXT_AUTH_ERRORS[result.error] ?? result.error) : "Log-in failed; try again.");
  }

  return (
    <Card title="Log in">
      {params.get("callbackUrl") ? <p className="text-sm text-slate-600">Log in to see that page.</p> : null}
      <form onSubmit={(e) => void onSubmit(e)} className="space-y-4" noValidate>
        <TextField label="Email" name="email" type="email" autoComplete="email" required />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
        {error ? (
          <Alert tone="error" data-testid="login-error">
            {error}
          </Alert>
        ) : null}
        <Button type="submit" loading={busy} className="w-full">
          Log in
        </Button>
      </form>
      <p className="text-sm text-slate-600">
        {`No account yet? `}
        <Link href="/signup" className="font-semibold text-indigo-600 hover:text-indigo-500">
          Sign up
        </Link>
      </p>
    </Card>
  );
}
