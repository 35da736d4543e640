"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { Panel } from "@/components/ui/card";
import { useToast } from "@/client/toast";
import { useShowError } from "@/client/show-error";
import { useTRPC } from "@/client/trpc/client";

/**
 * An owner's switch (docs/decisions.md §18): require two-factor sign-in of every member. Members without it
 * can then reach only their own Security page until they turn it on. The owner turns on their own first, so
 * the switch cannot lock them out.
 */
export function TwoFactorPolicy() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const showError = useShowError();
  const id = useId();
  const status = useQuery(trpc.twoFactor.status.queryOptions());
  const setPolicy = useMutation(trpc.twoFactor.setPolicy.mutationOptions());
  const s = status.data;
  if (!s?.isOwner) return null;

  const change = async (required: boolean) => {
    try {
      await setPolicy.mutateAsync({ required });
      toast.success(
        required ? "Every member now needs two-factor sign-in." : "Two-factor sign-in is no longer required.",
      );
    } catch (err) {
      showError(err);
    }
    await queryClient.invalidateQueries({ queryKey: trpc.twoFactor.status.queryKey() });
  };

  return (
    <Panel title="Require two-factor sign-in" data-testid="two-factor-policy">
      <div className="flex items-start gap-3 text-sm text-slate-700 dark:text-slate-300">
        <input
          id={id}
          type="checkbox"
          className="mt-0.5 h-4 w-4"
          checked={s.accountRequires}
          disabled={setPolicy.isPending || (!s.accountRequires && !s.enabled)}
          aria-describedby={`${id}-hint`}
          onChange={(e) => void change(e.target.checked)}
          data-testid="two-factor-required"
        />
        <div>
          <label htmlFor={id} className="font-medium text-slate-900 dark:text-slate-100">
            Require two-factor sign-in of every member of this account
          </label>
          <p id={`${id}-hint`} className="mt-1 text-slate-600 dark:text-slate-400">
            {s.enabled || s.accountRequires
              ? "A member without it can only turn it on until they do; API keys are not affected."
              : "Turn on your own two-factor sign-in first."}
          </p>
        </div>
      </div>
    </Panel>
  );
}
