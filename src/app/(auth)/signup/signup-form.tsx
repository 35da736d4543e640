"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useState } from "react";
import { z } from "zod";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyField } from "@/components/ui/copy-button";
import { TextField } from "@/components/ui/field";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { ZRegisterInput } from "@/shared/schemas/auth";

// The API's schema; the form's empty company field means "none".
const ZSignupForm = ZRegisterInput.extend({
  companyName: z
    .string()
    .trim()
    .max(200)
    .transform((v) => v || null),
});
const LABELS = { email: "Email", password: "Password", companyName: "Company" } as const;

/**
 * Registration through the same procedure as POST /api/auth/register; then a
 * session like any log-in. Without JavaScript the form posts to
 * /signup/submit, which does the same and shows the key on /signup/welcome.
 */
export function SignupForm(props: { email: string; companyName: string; error: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const register = useMutation(trpc.auth.register.mutationOptions());
  const { field, formError, fail, onSubmit } = useApiForm({
    schema: ZSignupForm,
    names: LABELS,
    defaultValues: { email: props.email, password: "", companyName: props.companyName },
    alert: true,
    initialError: props.error,
  });
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [signInError, setSignInError] = useState<string | null>(null);
  const [continuing, setContinuing] = useState(false);

  const submit = onSubmit(async (values) => {
    try {
      const result = await register.mutateAsync(values);
      const session = await signIn("credentials", { redirect: false, email: values.email, password: values.password });
      if (!session?.ok || session.error) setSignInError(session?.error ?? "Log in to continue.");
      setApiKey(result.apiKey);
    } catch (err) {
      fail(err);
    }
  });

  if (apiKey) {
    return (
      <Card title="Your account is ready">
        <Alert tone="warning" title="Save your API key now">
          This is the only time it is shown. Your backend sends it as <code>Authorization: Bearer …</code>. You can
          create more keys and revoke this one later.
        </Alert>
        <CopyField label="API key" value={apiKey} data-testid="signup-api-key" />
        <p className="text-sm text-slate-600">
          We sent a link to your email address: open it to confirm the address is yours.
        </p>
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
      <form method="post" action="/signup/submit" onSubmit={(e) => void submit(e)} className="space-y-4" noValidate>
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
          autoComplete="new-password"
          required
          hint="At least 8 characters."
          {...field("password")}
        />
        <TextField
          label="Company (optional)"
          autoComplete="organization"
          defaultValue={props.companyName}
          {...field("companyName")}
        />
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
