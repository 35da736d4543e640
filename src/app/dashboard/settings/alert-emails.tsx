"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Panel } from "@/components/ui/card";
import { QueryState } from "@/components/ui/query-state";
import { useToast } from "@/client/toast";
import { messageOf, useTRPC } from "@/client/trpc/client";
import { useHydrated } from "@/client/use-hydrated";
import { useRole } from "@/client/use-role";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { ALERT_DESCRIPTIONS, ALERT_TYPES, type AlertType } from "@/shared/schemas/alerts";

/** GET/PUT /api/account/alert-settings: which alert kinds are also emailed (all by default). */
export function AlertEmails() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const settings = useQuery(trpc.alerts.settings.queryOptions());
  // Server-rendered with the page: a box clicked before the scripts own it would spring back (use-hydrated.ts).
  const hydrated = useHydrated();
  const forbidden = useRole().reasonFor("admin", "change alert emails");
  const save = useMutation(
    trpc.alerts.putSettings.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.alerts.settings.queryKey(), data);
        toast.success("Alert emails saved");
      },
      onError: async (err) => {
        toast.error(messageOf(err));
        await queryClient.invalidateQueries({ queryKey: trpc.alerts.settings.queryKey() });
      },
    }),
  );
  // The box moves at once (the saved settings replace it when the answer comes, the stored ones if it fails).
  const change = (email: Record<AlertType, boolean>) => {
    queryClient.setQueryData(trpc.alerts.settings.queryKey(), { email });
    save.mutate({ email });
  };
  return (
    <Panel title="Alert emails" data-testid="settings-alert-emails">
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Alerts go to this account's address as well as to endpoints subscribed to them. Switching a kind off here stops
        its email only.
      </p>
      <ForbiddenReason reason={forbidden} id="alert-emails-forbidden" />
      <QueryState query={settings} loadingLabel="Loading alert settings…">
        {(data) => (
          <ul className="mt-4 space-y-2">
            {ALERT_TYPES.map((type) => (
              <li key={type}>
                <label className="flex items-start gap-3 text-sm">
                  <input
                    type="checkbox"
                    className="mt-0.5"
                    checked={data.email[type]}
                    disabled={!hydrated || forbidden !== null}
                    aria-describedby={forbidden ? "alert-emails-forbidden" : undefined}
                    onChange={(e) => change({ ...data.email, [type]: e.target.checked })}
                  />
                  <span>
                    <code className="font-medium">{type}</code>
                    <span className="block text-slate-600 dark:text-slate-400">{ALERT_DESCRIPTIONS[type]}</span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </Panel>
  );
}
