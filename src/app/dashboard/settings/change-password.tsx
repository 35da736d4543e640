"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { ZChangePasswordInput } from "@/shared/schemas/account-settings";

/**
 * A new password ends every session, this one included; the browser that
 * changed it signs in again at once with the new password, so the person who
 * changed it stays in and everyone else is out.
 */
export function ChangePassword() {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const settings = useQuery(trpc.settings.get.queryOptions());
  const { form, field, fail, onSubmit } = useApiForm({
    schema: ZChangePasswordInput,
    names: { currentPassword: "Current password", newPassword: "New password" },
    defaultValues: { currentPassword: "", newPassword: "" },
  });
  const change = useMutation(trpc.settings.changePassword.mutationOptions());

  const submit = onSubmit(async (values) => {
    try {
      await change.mutateAsync(values);
    } catch (err) {
      fail(err);
      return;
    }
    form.reset();
    const session = settings.data
      ? await signIn("credentials", { redirect: false, email: settings.data.email, password: values.newPassword })
      : null;
    if (!session?.ok || session.error) {
      router.replace("/login?notice=password-changed");
      return;
    }
    toast.success("Password changed. Every other session has been signed out.");
    router.refresh();
  });

  return (
    <Panel title="Password" data-testid="settings-password">
      <form onSubmit={(e) => void submit(e)} className="grid gap-4 sm:grid-cols-2" noValidate>
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          {...field("currentPassword")}
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 8 characters. Other sessions are signed out."
          {...field("newPassword")}
        />
        <div className="sm:col-span-2">
          <Button type="submit" variant="secondary" loading={change.isPending || form.formState.isSubmitting}>
            Change password
          </Button>
        </div>
      </form>
    </Panel>
  );
}
