"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { TextField } from "@/components/ui/field";
import { QueryState } from "@/components/ui/query-state";
import { useToast } from "@/client/toast";
import { monthName, usd } from "@/shared/format";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { useRole } from "@/client/use-role";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { LIMITS_FIELD_NAMES, limitsFormSchema, limitsFormValues, type LimitsFormValues } from "./limits-form-schema";

type Current = { month: string; spent: number; liveCalls: number; thresholdsReached: number[] };
type Limits = {
  monthlyBudget: number | null;
  alertThresholds: number[];
  hardCap: boolean;
  maxConcurrentCalls: number | null;
};

/**
 * The month's usage cost against the budget (docs/decisions.md §17): a meter with a mark at each alert
 * threshold, the figures in words beside it, so nothing is told by colour or position alone.
 */
function SpendBar({ limits, current }: { limits: Limits; current: Current }) {
  const budget = limits.monthlyBudget;
  if (budget === null)
    return (
      <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="spend-no-budget">
        {`${usd(current.spent)} spent in ${monthName(current.month)}. No monthly budget set: no alerts and no cap.`}
      </p>
    );
  const percent = budget > 0 ? (current.spent / budget) * 100 : current.spent > 0 ? 100 : 0;
  const shown = Math.min(100, percent);
  const tone = percent >= 100 ? "bg-red-600" : percent >= 80 ? "bg-amber-500" : "bg-indigo-600";
  return (
    <div data-testid="spend-bar-block">
      <p className="text-sm text-slate-700 dark:text-slate-200" data-testid="spend-summary">
        <span className="font-semibold">{usd(current.spent)}</span>
        {` of ${usd(budget)} in ${monthName(current.month)} (${Math.floor(percent)} %)`}
        {limits.hardCap ? ". Hard cap on: new calls are refused at the budget." : "."}
      </p>
      {/* A native meter tells assistive technology; the drawn bar beside it is for the eye. */}
      <meter
        className="sr-only"
        aria-label="Usage cost this month against the budget"
        min={0}
        max={budget}
        value={Math.min(current.spent, budget)}
        aria-valuetext={`${usd(current.spent)} of ${usd(budget)}`}
      />
      <div
        aria-hidden="true"
        data-testid="spend-bar"
        data-percent={Math.floor(percent)}
        className="relative mt-3 h-3 w-full rounded-full bg-slate-200 dark:bg-slate-700"
      >
        <div className={`h-3 rounded-full ${tone}`} style={{ width: `${shown}%` }} data-testid="spend-bar-fill" />
        {limits.alertThresholds.map((t) => (
          <span
            key={t}
            aria-hidden="true"
            className="absolute -top-1 h-5 w-0.5 bg-slate-700 dark:bg-slate-200"
            style={{ left: `calc(${Math.min(t, 100)}% - 1px)` }}
            data-testid="spend-threshold-mark"
          />
        ))}
      </div>
      <ul className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 dark:text-slate-300">
        {limits.alertThresholds.map((t) => {
          const reached = current.thresholdsReached.includes(t);
          return (
            <li key={t} data-testid="spend-threshold" data-reached={reached}>
              {`${t} % (${usd((budget * t) / 100)}): ${reached ? "reached, alert sent" : "not reached"}`}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** The billing page's guardrails: the spend bar, live calls, and the limits form. */
export function SpendLimits() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const limits = useQuery(trpc.account.limits.queryOptions());
  // Limits are read by everyone, changed by an owner or admin (docs/decisions.md §18).
  const forbidden = useRole().reasonFor("admin", "change limits");
  const { form, field, formError, fail, onSubmit } = useApiForm({
    schema: limitsFormSchema,
    names: LIMITS_FIELD_NAMES,
    defaultValues: { monthlyBudget: "", alertThresholds: "50, 80, 100", hardCap: false, maxConcurrentCalls: "" },
    alert: true,
  });
  const loaded = limits.data?.limits;
  useEffect(() => {
    if (loaded) form.reset(limitsFormValues(loaded) as LimitsFormValues);
  }, [loaded, form]);

  const save = useMutation(
    trpc.account.putLimits.mutationOptions({
      onSuccess: async (saved) => {
        toast.success("Limits saved");
        queryClient.setQueryData(trpc.account.limits.queryKey(), saved);
        await queryClient.invalidateQueries({ queryKey: trpc.account.limits.queryKey() });
      },
      onError: fail,
    }),
  );
  const submit = onSubmit((input) => save.mutate(input));

  return (
    <Panel title="Spend and volume limits" data-testid="spend-limits">
      <QueryState query={limits}>
        {({ limits: l, current }) => (
          <div className="space-y-2">
            <SpendBar limits={l} current={current} />
            <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="live-calls">
              {`Live calls now: ${current.liveCalls}${l.maxConcurrentCalls === null ? "" : ` of at most ${l.maxConcurrentCalls}`}`}
            </p>
          </div>
        )}
      </QueryState>
      <form onSubmit={submit} noValidate data-testid="limits-form" className="mt-6 space-y-4">
        {formError ? (
          <Alert tone="error" title="The limits were not saved" data-testid="limits-form-error">
            {formError}
          </Alert>
        ) : null}
        <ForbiddenReason reason={forbidden} id="limits-forbidden" />
        <fieldset disabled={forbidden !== null} className="space-y-4">
          <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
            <TextField
              label="Monthly budget (USD)"
              hint="Usage cost per UTC month, base excluded. Empty: none."
              inputMode="decimal"
              placeholder="250.00"
              {...field("monthlyBudget")}
            />
            <TextField
              label="Alert thresholds (%)"
              hint="Up to 10, from 1 to 100: an email and usage.threshold_reached at each, once a month."
              placeholder="50, 80, 100"
              {...field("alertThresholds")}
            />
            <TextField
              label="Concurrent calls"
              hint="Calls live at once; more are refused (busy). Empty: no cap."
              inputMode="numeric"
              placeholder="20"
              {...field("maxConcurrentCalls")}
            />
          </div>
          <label className="flex items-start gap-2 text-sm text-slate-800 dark:text-slate-200">
            <input type="checkbox" className="mt-0.5 h-4 w-4" data-testid="hard-cap" {...form.register("hardCap")} />
            <span>
              <span className="font-medium">Hard cap</span>
              <span className="block text-xs text-slate-500 dark:text-slate-400">
                Refuse new calls once the month reaches the budget (inbound busy, outbound 402). Calls already live go
                on.
              </span>
            </span>
          </label>
          <div className="flex justify-end">
            <Button
              type="submit"
              loading={save.isPending}
              aria-describedby={forbidden ? "limits-forbidden" : undefined}
              className="w-full sm:w-auto"
            >
              Save limits
            </Button>
          </div>
        </fieldset>
      </form>
    </Panel>
  );
}
