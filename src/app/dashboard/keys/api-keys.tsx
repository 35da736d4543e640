"use client";

import { LocalTime } from "@/components/ui/local-time";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useRef } from "react";
import { z } from "zod";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { SelectField, TextField } from "@/components/ui/field";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { Table, Td } from "@/components/ui/table";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";
import { useApiForm } from "@/client/use-api-form";
import { useRole } from "@/client/use-role";
import { ROLE_LABELS } from "@/shared/roles";
import { ZCreateApiKeyInput } from "@/shared/schemas/api-keys";
import type { AppRouter } from "@/server/trpc/root";

type Outputs = inferRouterOutputs<AppRouter>;
type ApiKey = Outputs["apiKeys"]["list"]["apiKeys"][number];
type CreatedKey = Outputs["apiKeys"]["create"];

const FIELD_NAMES = { label: "Label", scope: "Access", expiresAt: "Expires" };
// An empty box means no label and no expiry; the API's schema reads that as absent. A date expires at the
// end of that day, in the browser's time zone.
const ZCreateKeyForm = ZCreateApiKeyInput.extend({
  label: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    ZCreateApiKeyInput.shape.label,
  ),
  expiresAt: z.preprocess(
    (v) =>
      typeof v !== "string" || v === ""
        ? undefined
        : /^\d{4}-\d{2}-\d{2}$/.test(v)
          ? new Date(`${v}T23:59:59.999`).toISOString()
          : v,
    ZCreateApiKeyInput.shape.expiresAt,
  ),
});

export function ApiKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const forbidden = useRole().reasonFor("write", "create or revoke API keys");
  const { form, field, fail, onSubmit } = useApiForm({
    schema: ZCreateKeyForm,
    names: FIELD_NAMES,
    defaultValues: { label: "", scope: "full", expiresAt: "" },
  });

  // The full key lives only in this mutation's result; "Done" resets it.
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: async (key) => {
        form.reset({ label: "", scope: "full", expiresAt: "" });
        toast.success(key.label ? `Key “${key.label}” created` : "Key created");
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() }),
        ]);
      },
      onError: fail,
    }),
  );

  return (
    <>
      <PageHeader
        title="API keys"
        description={
          <>
            Keys authenticate your server to the REST API: send one as{" "}
            <code className="font-mono text-xs">Authorization: Bearer rtk_…</code>. A key acts with the role its maker
            had when making it. Revoking a key stops it on the next request.
          </>
        }
      />
      <div className="space-y-6">
        <Panel title="Create a key">
          <form
            onSubmit={onSubmit((input) => create.mutate(input))}
            noValidate
            data-testid="api-key-form"
            className="space-y-3"
          >
            <ForbiddenReason reason={forbidden} id="api-key-forbidden" />
            <fieldset
              disabled={forbidden !== null}
              className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-start"
            >
              <TextField
                label="Label (optional)"
                hint="A name to tell keys apart, like “production server”."
                autoComplete="off"
                maxLength={100}
                {...field("label")}
                className="sm:max-w-md sm:flex-1"
              />
              <SelectField label="Access" {...form.register("scope")} data-testid="api-key-scope" className="sm:w-44">
                <option value="full">Full</option>
                <option value="read-only">Read-only (GET)</option>
              </SelectField>
              <TextField
                label="Expires (optional)"
                hint="The key stops working at the end of that day."
                type="date"
                {...field("expiresAt")}
                data-testid="api-key-expires"
                className="sm:w-48"
              />
              <Button
                type="submit"
                loading={create.isPending}
                aria-describedby={forbidden ? "api-key-forbidden" : undefined}
                className="sm:mt-6"
              >
                Create key
              </Button>
            </fieldset>
          </form>
        </Panel>
        {create.data ? <NewKeyReveal created={create.data} onDone={() => create.reset()} /> : null}
        <Panel title="Your keys">
          <KeyList forbidden={forbidden} />
        </Panel>
      </div>
    </>
  );
}

/** The one time the full key exists outside the customer's hands: shown once, then forgotten. */
function NewKeyReveal({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves each time a new key is revealed
  useEffect(() => {
    headingRef.current?.focus();
  }, [created.id]);
  return (
    <section
      data-testid="new-api-key-panel"
      aria-labelledby="new-api-key-title"
      className="rounded-xl border-2 border-indigo-300 dark:border-indigo-700 bg-indigo-50 dark:bg-indigo-950/60 p-4 shadow-sm sm:p-5"
    >
      <h2
        id="new-api-key-title"
        ref={headingRef}
        tabIndex={-1}
        className="text-base font-semibold text-indigo-950 dark:text-indigo-100 focus:outline-none"
      >
        {created.label ? `Your new key “${created.label}”` : "Your new key"}
      </h2>
      <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-start">
        <code
          data-testid="new-api-key"
          className="min-w-0 flex-1 break-all rounded-md bg-white dark:bg-slate-900 px-3 py-2 font-mono text-sm text-slate-900 dark:text-slate-100 ring-1 ring-inset ring-indigo-200 dark:ring-indigo-800"
        >
          {created.key}
        </code>
        <CopyButton value={created.key} label="Copy key" />
      </div>
      <div className="mt-3">
        <Alert tone="warning">
          Copy it now and keep it somewhere safe: it will not be shown again. If you lose it, revoke it and create
          another.
        </Alert>
      </div>
      <div className="mt-4 flex justify-end">
        <Button onClick={onDone}>Done</Button>
      </div>
    </section>
  );
}

/** `forbidden`: why this member may not revoke (their role), said once above the create form. */
function KeyList({ forbidden }: { forbidden: string | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const list = useQuery(trpc.apiKeys.list.queryOptions());
  const revoke = useConfirmedMutation(trpc.apiKeys.revoke.mutationOptions(), {
    variablesOf: (k: ApiKey) => ({ id: k.id }),
    onSuccess: async (_, k) => {
      toast.success(`Key ${k.keyPrefix}… revoked`);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.account.get.queryKey() }),
      ]);
    },
  });
  const toRevoke = revoke.subject;

  return (
    <QueryState query={list} loadingLabel="Loading keys…">
      {({ apiKeys: keys }) => (
        <>
          {keys.length === 0 ? (
            <EmptyState title="No API keys" data-testid="api-keys-empty">
              Create a key above to call the REST API from your own server.
            </EmptyState>
          ) : (
            <Table
              head={["Key", "Label", "Access", "Made by", "Expires", "Created", "Last used", ""]}
              data-testid="api-keys-table"
            >
              {keys.map((k) => (
                <tr key={k.id} data-testid="api-key-row" data-key-prefix={k.keyPrefix}>
                  <Td label="Key" className="font-mono text-xs">{`${k.keyPrefix}…`}</Td>
                  <Td label="Label">
                    {k.label ? (
                      // Labels run to 100 characters: one line, cut short, whole on hover.
                      <span
                        className="block max-w-[16rem] truncate max-sm:max-w-full"
                        title={k.label}
                        data-testid="api-key-label"
                      >
                        {k.label}
                      </span>
                    ) : (
                      <span className="text-slate-400 dark:text-slate-500">—</span>
                    )}
                  </Td>
                  {/* What the key may do: its scope, and the role it acts with (its maker's when made, §18). */}
                  <Td label="Access">
                    <span data-testid="api-key-scope-cell">{k.scope === "read-only" ? "Read-only" : "Full"}</span>
                    <span className="block text-xs text-slate-500 dark:text-slate-400" data-testid="api-key-role-cell">
                      {`as ${ROLE_LABELS[k.role]}`}
                    </span>
                  </Td>
                  <Td label="Made by">
                    {k.createdBy ? (
                      <span
                        className="block max-w-[12rem] truncate max-sm:max-w-full"
                        title={k.createdBy.email}
                        data-testid="api-key-created-by"
                      >
                        {k.createdBy.email}
                      </span>
                    ) : (
                      // The maker's login is gone (decisions §18 keeps the key, the account's).
                      <span className="text-slate-400 dark:text-slate-500">—</span>
                    )}
                  </Td>
                  <Td label="Expires">
                    {k.expiresAt ? (
                      <span data-testid="api-key-expires-cell">
                        {new Date(k.expiresAt).getTime() <= Date.now() ? "expired " : ""}
                        <LocalTime iso={k.expiresAt} />
                      </span>
                    ) : (
                      "never"
                    )}
                  </Td>
                  {/* Times wrap to two lines: with the maker's column the table still fits a laptop's width. */}
                  <Td label="Created">
                    <span className="block max-w-[8rem] whitespace-normal max-sm:max-w-full">
                      <LocalTime iso={k.createdAt} />
                    </span>
                  </Td>
                  <Td label="Last used">
                    <span className="block max-w-[8rem] whitespace-normal max-sm:max-w-full">
                      {k.lastUsedAt ? <LocalTime iso={k.lastUsedAt} /> : "never"}
                    </span>
                  </Td>
                  <Td className="text-right">
                    <Button
                      variant="secondary"
                      size="sm"
                      disabled={forbidden !== null}
                      aria-describedby={forbidden ? "api-key-forbidden" : undefined}
                      onClick={() => revoke.ask(k)}
                    >
                      Revoke
                    </Button>
                  </Td>
                </tr>
              ))}
            </Table>
          )}
          <ConfirmDialog {...revoke.dialog} title="Revoke key" confirmLabel="Revoke key">
            {toRevoke
              ? `Requests made with ${toRevoke.keyPrefix}…${toRevoke.label ? ` (${toRevoke.label})` : ""} will be refused from the next one on. This cannot be undone.`
              : null}
          </ConfirmDialog>
        </>
      )}
    </QueryState>
  );
}
