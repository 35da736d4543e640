"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/card";
import { CopyButton, CopyField } from "@/components/ui/copy-button";
import { TextField } from "@/components/ui/field";
import { LocalTime } from "@/components/ui/local-time";
import { QueryState } from "@/components/ui/query-state";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import {
  ZConfirmTwoFactorInput,
  ZDisableTwoFactorInput,
  ZRegenerateRecoveryCodesInput,
} from "@/shared/schemas/two-factor";

/**
 * docs/decisions.md §18: turn two-factor sign-in on (a secret for the app, confirmed with a code), see the
 * recovery codes once, make new ones, or turn it off. The secret and the codes live only in this component's
 * state: leaving the page forgets them, as the server keeps no readable copy of the codes.
 */
export function TwoFactor() {
  const trpc = useTRPC();
  const status = useQuery(trpc.twoFactor.status.queryOptions());
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  return (
    <Panel title="Two-factor sign-in" data-testid="two-factor">
      {recoveryCodes ? (
        <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />
      ) : (
        <QueryState query={status} loadingLabel="Loading two-factor sign-in…">
          {(s) =>
            s.enabled ? (
              <Enabled enabledAt={s.enabledAt} left={s.recoveryCodesLeft} onCodes={setRecoveryCodes} />
            ) : (
              <TurnOn onCodes={setRecoveryCodes} />
            )
          }
        </QueryState>
      )}
    </Panel>
  );
}

/**
 * After a change: the status again, and the server-rendered shell too (router.refresh keeps this page's state,
 * the recovery codes on screen included), whose banner says whether an account's requirement still holds.
 */
function useRefreshStatus() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.twoFactor.status.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.auth.me.queryKey() }),
    ]);
    router.refresh();
  };
}

function TurnOn({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshStatus();
  const begin = useMutation(trpc.twoFactor.begin.mutationOptions());
  const confirm = useMutation(trpc.twoFactor.confirm.mutationOptions());
  const { form, field, fail, onSubmit } = useApiForm({
    schema: ZConfirmTwoFactorInput,
    names: { code: "Code" },
    defaultValues: { code: "" },
  });

  const submit = onSubmit(async (values) => {
    try {
      const { recoveryCodes } = await confirm.mutateAsync(values);
      onCodes(recoveryCodes);
      await refresh();
    } catch (err) {
      fail(err);
    }
  });

  if (!begin.data)
    return (
      <div className="space-y-3 text-sm text-slate-700 dark:text-slate-300">
        <p data-testid="two-factor-off">
          Off. With two-factor sign-in, logging in also asks for the 6-digit code an authenticator app (1Password,
          Google Authenticator, Authy…) shows.
        </p>
        {begin.error ? <Alert tone="error">{begin.error.message}</Alert> : null}
        <Button onClick={() => begin.mutate()} loading={begin.isPending} data-testid="two-factor-begin">
          Turn on two-factor sign-in
        </Button>
      </div>
    );

  return (
    <div className="space-y-4 text-sm text-slate-700 dark:text-slate-300">
      <p>
        Add this secret to your authenticator app (type it in, or open the otpauth link on the phone), then enter the
        code the app shows.
      </p>
      <CopyField label="Secret" value={begin.data.secret} data-testid="two-factor-secret" />
      <CopyField label="otpauth URL" value={begin.data.otpauthUrl} data-testid="two-factor-otpauth-url" />
      <form onSubmit={(e) => void submit(e)} className="flex flex-wrap items-end gap-3" noValidate>
        <TextField
          label="Code from the app"
          inputMode="numeric"
          autoComplete="one-time-code"
          className="w-48"
          {...field("code")}
        />
        <Button
          type="submit"
          loading={confirm.isPending || form.formState.isSubmitting}
          data-testid="two-factor-confirm"
        >
          Confirm and turn on
        </Button>
      </form>
    </div>
  );
}

function Enabled({
  enabledAt,
  left,
  onCodes,
}: {
  enabledAt: string | null;
  left: number;
  onCodes: (codes: string[]) => void;
}) {
  const trpc = useTRPC();
  const refresh = useRefreshStatus();
  const toast = useToast();
  const regenerate = useMutation(trpc.twoFactor.regenerateRecoveryCodes.mutationOptions());
  const disable = useMutation(trpc.twoFactor.disable.mutationOptions());
  const regenerateForm = useApiForm({
    schema: ZRegenerateRecoveryCodesInput,
    names: { code: "Code" },
    defaultValues: { code: "" },
  });
  const disableForm = useApiForm({
    schema: ZDisableTwoFactorInput,
    names: { code: "Code" },
    defaultValues: { code: "" },
  });

  const submitRegenerate = regenerateForm.onSubmit(async (values) => {
    try {
      const { recoveryCodes } = await regenerate.mutateAsync(values);
      onCodes(recoveryCodes);
      await refresh();
    } catch (err) {
      regenerateForm.fail(err);
    }
  });
  const submitDisable = disableForm.onSubmit(async (values) => {
    try {
      await disable.mutateAsync(values);
      disableForm.form.reset();
      toast.success("Two-factor sign-in is off.");
      await refresh();
    } catch (err) {
      disableForm.fail(err);
    }
  });

  return (
    <div className="space-y-6 text-sm text-slate-700 dark:text-slate-300">
      <p data-testid="two-factor-on">
        On since <LocalTime iso={enabledAt} />. {left} of 10 recovery codes left.
      </p>
      <form onSubmit={(e) => void submitRegenerate(e)} className="space-y-2" noValidate>
        <h3 className="font-semibold text-slate-900 dark:text-slate-100">New recovery codes</h3>
        <p>Ten new codes replace the old ones, used or not.</p>
        <div className="flex flex-wrap items-end gap-3">
          <TextField
            label="Code from the app, or a recovery code"
            autoComplete="one-time-code"
            className="w-72 max-w-full"
            {...regenerateForm.field("code")}
          />
          <Button type="submit" variant="secondary" loading={regenerate.isPending} data-testid="two-factor-regenerate">
            Make new recovery codes
          </Button>
        </div>
      </form>
      <form onSubmit={(e) => void submitDisable(e)} className="space-y-2" noValidate>
        <h3 className="font-semibold text-slate-900 dark:text-slate-100">Turn off</h3>
        <p>
          Logging in will ask for the password only. An account that requires two-factor will refuse you until it is on
          again.
        </p>
        <div className="flex flex-wrap items-end gap-3">
          <TextField
            label="Code from the app, or a recovery code"
            autoComplete="one-time-code"
            className="w-72 max-w-full"
            {...disableForm.field("code")}
          />
          <Button type="submit" variant="danger" loading={disable.isPending} data-testid="two-factor-disable">
            Turn off two-factor sign-in
          </Button>
        </div>
      </form>
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div className="space-y-4 text-sm text-slate-700 dark:text-slate-300">
      <Alert tone="success" title="Two-factor sign-in is on">
        Save these ten recovery codes somewhere safe. Each signs you in once without the app. They are shown only now.
      </Alert>
      <ul className="grid grid-cols-2 gap-2 font-mono text-sm sm:grid-cols-5" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code} className="rounded-md bg-slate-100 px-2 py-1 text-center dark:bg-slate-800">
            {code}
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-3">
        <CopyButton value={codes.join("\n")} label="Copy all" />
        <Button onClick={onDone} data-testid="recovery-codes-done">
          I have saved them
        </Button>
      </div>
    </div>
  );
}
