"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyField } from "@/components/ui/copy-button";
import { TextField } from "@/components/ui/field";
import { errorsFromDetails, errorsFromIssues, type FieldErrors } from "@/lib/field-errors";
import { appErrorOf, useTRPC } from "@/lib/trpc/client";
import { ZRegisterInput } from "@/server/schemas/auth";

const FIELD_NAMES = { email: "Email", password: "Password", companyName: "Company" };

/** Registration through the same procedure as POST /api/auth/register; then a session like any log-in. */
export function SignupForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const register = useMutation(trpc.auth.register.mutationOptions());
  const [fieldErrors, setFieldErrors] = useState<FieldErrors<keyof typeof FIELD_NAMES>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [signInError, setSignInError] = useState<string | null>(null);
  const [continuing, setContinuing] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const raw = { email: String(form.get("email") ?? ""), password: String(form.get("password") ?? ""), companyName: String(form.get("companyName") ?? "").trim() || null };
    setFormError(null);
    // The API's own schema, so the messages here are the ones the API would give.
    const parsed = ZRegisterInput.safeParse(raw);
    if (!parsed.success) {
      setFieldErrors(errorsFromIssues(FIELD_NAMES, parsed.error.issues));
      return;
    }
    setFieldErrors({});
    try {
      const result = await register.mutateAsync(parsed.data);
      const session = await signIn("credentials", { redirect: false, email: parsed.data.email, password: raw.password });
      if (!session?.ok || session.error) setSignInError(session?.error ?? "Log in to continue.");
      setApiKey(result.apiKey);
    } catch (err) {
      const appError = appErrorOf(err);
      setFieldErrors(errorsFromDetails(FIELD_NAMES, appError?.details));
      setFormError(appError?.message ?? "Sign-up failed; try again.");
    }
  }

  if (apiKey) {
    return (
      <Card title="Your account is ready">
        <Alert tone="warning" title="Save your API key now">
          This is the only time it is shown. Your backend sends it as <code>Authorization: Bearer …</code>. You can create more keys and revoke this one later.
        </Alert>
        <CopyField label="API key" value={apiKey} data-testid="signup-api-key" />
        {signInError ? <Alert tone="error">{signInError}</Alert> : null}
        <Button
          className="w-full"
          loading={continuing}
          onClick={() => {
            setContinuing(true);
            router.replace(signInError ? "/login" : "/dashboard");
            router.refresh();
          }}
        >
          {signInError ? "Go to log-in" : "Continue to the dashboard"}
        </Button>
      </Card>
    );
  }

  return (
    <Card title="Create your Routekit account">
      <form onSubmit={(e) => void onSubmit(e)} className="space-y-4" noValidate>
        <TextField label="Email" name="email" type="email" autoComplete="email" required error={fieldErrors.email} />
        <TextField label="Password" name="password" type="password" autoComplete="new-password" required hint="At least 8 characters." error={fieldErrors.password} />
        <TextField label="Company (optional)" name="companyName" autoComplete="organization" error={fieldErrors.companyName} />
        {formError ? (
          <Alert tone="error" data-testid="signup-error">
            {formError}
          </Alert>
        ) : null}
        <Button type="submit" loading={register.isPending} className="w-full">
          Sign up
        </Button>
      </form>
      <p className="text-sm text-slate-600">
        {`Already have an account? `}
        <Link href="/login" className="font-semibold text-indigo-600 hover:text-indigo-500">
          Log in
        </Link>
      </p>
    </Card>
  );
}
