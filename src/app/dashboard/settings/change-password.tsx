"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { appErrorOf, messageOf, useTRPC } from "@/lib/trpc/client";
import { ZChangePasswordInput } from "@/server/schemas/account-settings";
import { fieldBinder } from "@/lib/form-field";

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
  const form = useForm({
    resolver: zodResolver(ZChangePasswordInput),
    defaultValues: { currentPassword: "", newPassword: "" },
  });
  const field = fieldBinder(form);
  const change = useMutation(trpc.settings.changePassword.mutationOptions());

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await change.mutateAsync(values);
    } catch (err) {
      const detail = appErrorOf(err)?.details?.find((d) => d.path === "currentPassword" || d.path === "newPassword");
      if (detail) form.setError(detail.path as "currentPassword" | "newPassword", { message: detail.message });
      else toast.error(messageOf(err));
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
      <form onSubmit={(e) => void onSubmit(e)} className="grid gap-4 sm:grid-cols-2" noValidate>
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          {...field("currentPassword", { subject: "Current password" })}
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 8 characters. Other sessions are signed out."
          {...field("newPassword", { subject: "New password" })}
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
