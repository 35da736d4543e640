"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { useRole } from "@/client/use-role";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { ZDeleteAccountInput } from "@/shared/schemas/account-settings";

/**
 * Closing the account (an owner), confirmed by typing the account's address and one's own password; says
 * exactly what happens first. The account's address, not the person's: with several members they can differ.
 */
export function DeleteAccount() {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  const { form, field, fail, onSubmit } = useApiForm({
    schema: ZDeleteAccountInput,
    names: { confirmEmail: "Email", password: "Password" },
    defaultValues: { confirmEmail: "", password: "" },
  });
  const remove = useMutation(trpc.settings.delete.mutationOptions());
  // Only an owner closes the account (docs/decisions.md §18); everyone else reads what it would do, and why not.
  const forbidden = useRole().reasonFor("owner", "close the account");

  const submit = onSubmit(async (values) => {
    if (account.data && values.confirmEmail !== account.data.account.email) {
      form.setError("confirmEmail", { message: "Email does not match the account's email address" });
      return;
    }
    try {
      await remove.mutateAsync(values);
    } catch (err) {
      fail(err);
      return;
    }
    await signOut({ callbackUrl: "/login?notice=deleted" });
  });

  return (
    <Panel title="Close the account" data-testid="settings-delete">
      <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
        <li>
          Your numbers are released (and cleared at Twilio where they still point at Routekit); inbound calls to them
          are no longer answered.
        </li>
        <li>
          Every API key stops working and every member loses access to it at once. Your subscription is cancelled.
        </li>
        <li>
          Your calls and usage records are kept for billing and audit; the account's email address is freed for a new
          sign-up, and so is each member's who belongs to no other account.
        </li>
      </ul>
      <ForbiddenReason reason={forbidden} id="delete-account-forbidden" />
      <form onSubmit={(e) => void submit(e)} className="mt-4" noValidate>
        <fieldset disabled={forbidden !== null} className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="Type the account's email address to confirm"
            type="email"
            autoComplete="off"
            {...field("confirmEmail")}
          />
          <TextField label="Password" type="password" autoComplete="current-password" {...field("password")} />
          <div className="sm:col-span-2">
            <Button
              type="submit"
              variant="danger"
              loading={remove.isPending || form.formState.isSubmitting}
              aria-describedby={forbidden ? "delete-account-forbidden" : undefined}
            >
              Close my account for good
            </Button>
          </div>
        </fieldset>
      </form>
    </Panel>
  );
}
