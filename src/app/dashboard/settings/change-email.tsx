"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/components/ui/toast";
import { appErrorOf, messageOf, useTRPC } from "@/lib/trpc/client";
import { ZRequestEmailChangeInput } from "@/server/schemas/account-settings";
import { fieldBinder } from "@/lib/form-field";

/** The address, whether it is confirmed, and a change that takes effect only from the link sent to the new one. */
export function ChangeEmail() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const settings = useQuery(trpc.settings.get.queryOptions());
  const form = useForm({
    resolver: zodResolver(ZRequestEmailChangeInput),
    defaultValues: { newEmail: "", currentPassword: "" },
  });
  const field = fieldBinder(form);
  const change = useMutation(trpc.settings.requestEmailChange.mutationOptions());

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const { pendingEmail } = await change.mutateAsync(values);
      form.reset();
      await qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
      toast.success(`We sent a link to ${pendingEmail}. Your address changes when you open it.`);
    } catch (err) {
      const e = appErrorOf(err);
      const fields = (e?.details ?? []).filter((d) => d.path === "newEmail" || d.path === "currentPassword");
      for (const d of fields) form.setError(d.path as "newEmail" | "currentPassword", { message: d.message });
      if (!fields.length) toast.error(messageOf(err));
    }
  });

  const s = settings.data;
  return (
    <Panel title="Email address" data-testid="settings-email">
      <p className="text-sm">
        <span className="break-all font-medium" data-testid="settings-current-email">
          {s?.email}
        </span>{" "}
        {s ? s.emailVerified ? <Badge tone="green">Confirmed</Badge> : <Badge tone="amber">Not confirmed</Badge> : null}
      </p>
      {s?.pendingEmail ? (
        <p className="mt-2 text-sm text-slate-600" data-testid="settings-pending-email">
          Waiting for confirmation: <span className="break-all font-medium">{s.pendingEmail}</span>. Open the link we
          sent there.
        </p>
      ) : null}
      <form onSubmit={(e) => void onSubmit(e)} className="mt-4 grid gap-4 sm:grid-cols-2" noValidate>
        <TextField
          label="New email address"
          type="email"
          autoComplete="email"
          {...field("newEmail", { subject: "Email" })}
        />
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          {...field("currentPassword", { subject: "Password" })}
        />
        <div className="sm:col-span-2">
          <Button type="submit" variant="secondary" loading={change.isPending}>
            Send a confirmation link
          </Button>
        </div>
      </form>
    </Panel>
  );
}
