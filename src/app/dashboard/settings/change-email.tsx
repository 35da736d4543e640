"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { ZRequestEmailChangeInput } from "@/shared/schemas/account-settings";

/** The address, whether it is confirmed, and a change that takes effect only from the link sent to the new one. */
export function ChangeEmail() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const toast = useToast();
  const settings = useQuery(trpc.settings.get.queryOptions());
  const { form, field, fail, onSubmit } = useApiForm({
    schema: ZRequestEmailChangeInput,
    names: { newEmail: "Email", currentPassword: "Password" },
    defaultValues: { newEmail: "", currentPassword: "" },
  });
  const change = useMutation(trpc.settings.requestEmailChange.mutationOptions());

  const submit = onSubmit(async (values) => {
    try {
      const { pendingEmail } = await change.mutateAsync(values);
      form.reset();
      await qc.invalidateQueries({ queryKey: trpc.settings.get.queryKey() });
      toast.success(`We sent a link to ${pendingEmail}. Your address changes when you open it.`);
    } catch (err) {
      fail(err);
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
      <form onSubmit={(e) => void submit(e)} className="mt-4 grid gap-4 sm:grid-cols-2" noValidate>
        <TextField label="New email address" type="email" autoComplete="email" {...field("newEmail")} />
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          {...field("currentPassword")}
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
