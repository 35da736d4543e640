"use client";

import { LocalTime } from "@/components/ui/local-time";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button, buttonClasses } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog } from "@/components/ui/dialog";
import { TextField } from "@/components/ui/field";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { useToast } from "@/client/toast";
import { messageOf, useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";
import { useRole } from "@/client/use-role";
import { MAX_ENDPOINTS_PER_ACCOUNT, webhookEndpointInputSchemas } from "@/shared/schemas/webhook-endpoints";
import type { EndpointEventType } from "@/shared/schemas/events";
import type { AppRouter } from "@/server/trpc/root";
import type { CallbackUrlPolicyOptions } from "@/shared/url-policy";
import { TestEventPanel } from "@/components/dashboard/test-event-panel";
import { ALL_EVENTS, TYPE_CHOICES, typesLabel } from "./endpoint-types";

type Outputs = inferRouterOutputs<AppRouter>;
type Endpoint = Outputs["webhookEndpoints"]["list"]["webhookEndpoints"][number];
type FormValues = { url: string; description: string; eventTypes: (EndpointEventType | typeof ALL_EVENTS)[] };

const FIELD_NAMES = { url: "URL", description: "Description", eventTypes: "Event types" };
const EMPTY: FormValues = { url: "", description: "", eventTypes: [] };

export function Endpoints({ policy }: { policy: CallbackUrlPolicyOptions }) {
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  return (
    <>
      <PageHeader
        title="Webhook endpoints"
        description={
          <>
            Every event of the types an endpoint subscribes to is sent there too, whichever number or call it comes
            from, signed with the endpoint's own secret. Your numbers' URLs keep receiving their events as before. At
            most {MAX_ENDPOINTS_PER_ACCOUNT} endpoints.
          </>
        }
      />
      <div className="space-y-6">
        <Panel title="Add an endpoint">
          <AddEndpointForm policy={policy} onCreated={setCreated} />
        </Panel>
        {created ? (
          <SecretReveal
            title="Your new endpoint's signing secret"
            url={created.url}
            secret={created.secret}
            onDone={() => setCreated(null)}
          />
        ) : null}
        <Panel title="Your endpoints">
          <EndpointList />
        </Panel>
      </div>
    </>
  );
}

function AddEndpointForm({
  policy,
  onCreated,
}: {
  policy: CallbackUrlPolicyOptions;
  onCreated: (c: { url: string; secret: string }) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const { allowPrivate } = policy;
  const schema = useMemo(() => webhookEndpointInputSchemas(() => ({ allowPrivate })).create, [allowPrivate]);
  const { form, field, formError, fail, onSubmit } = useApiForm({
    schema,
    names: FIELD_NAMES,
    defaultValues: EMPTY,
    alert: true,
  });
  const chosen = form.watch("eventTypes") ?? [];
  const all = chosen.includes(ALL_EVENTS);
  const typesError = form.formState.errors.eventTypes;
  const typesErrorId = useId();
  const forbidden = useRole().reasonFor("write", "change endpoints");

  const create = useMutation(
    trpc.webhookEndpoints.create.mutationOptions({
      onSuccess: async ({ webhookEndpoint }) => {
        toast.success("Endpoint added");
        form.reset(EMPTY);
        onCreated({ url: webhookEndpoint.url, secret: webhookEndpoint.secret });
        await queryClient.invalidateQueries({ queryKey: trpc.webhookEndpoints.list.queryKey() });
      },
      onError: fail,
    }),
  );

  return (
    <form
      onSubmit={onSubmit((input) => create.mutate(input))}
      noValidate
      data-testid="endpoint-form"
      className="space-y-4"
    >
      {formError ? (
        <Alert tone="error" data-testid="endpoint-form-error">
          {formError}
        </Alert>
      ) : null}
      <ForbiddenReason reason={forbidden} id="endpoint-form-forbidden" />
      {/* Not the form's own attribute: the inner fieldset's aria-describedby names its error. */}
      <fieldset disabled={forbidden !== null} className="space-y-4">
        <TextField
          label="URL"
          hint={allowPrivate ? "An http or https URL." : "A public HTTPS URL."}
          autoComplete="off"
          inputMode="url"
          placeholder="https://api.example.com/routekit/events"
          {...field("url")}
        />
        <TextField
          label="Description (optional)"
          hint="What this endpoint is for, like “data pipeline”."
          autoComplete="off"
          maxLength={200}
          {...field("description")}
        />
        <fieldset aria-describedby={typesError ? typesErrorId : undefined} data-testid="endpoint-types">
          <legend className="text-sm font-medium text-slate-800 dark:text-slate-200">Event types</legend>
          <div className="mt-2 space-y-2">
            <Checkbox
              value={ALL_EVENTS}
              label="All events"
              hint="Every type below, and new ones as they come"
              {...form.register("eventTypes")}
            />
            <div className="grid gap-2 sm:grid-cols-2">
              {TYPE_CHOICES.map((c) => (
                <Checkbox
                  key={c.type}
                  value={c.type}
                  label={c.type}
                  hint={c.description}
                  disabled={all}
                  mono
                  {...form.register("eventTypes")}
                />
              ))}
            </div>
          </div>
          {typesError?.message ? (
            <p id={typesErrorId} role="alert" className="mt-1 text-xs font-medium text-red-600 dark:text-red-400">
              {typesError.message}
            </p>
          ) : null}
        </fieldset>
        <Button
          type="submit"
          loading={create.isPending}
          aria-describedby={forbidden ? "endpoint-form-forbidden" : undefined}
        >
          Add endpoint
        </Button>
      </fieldset>
    </form>
  );
}

function Checkbox({
  label,
  hint,
  mono = false,
  ...input
}: React.InputHTMLAttributes<HTMLInputElement> & { label: string; hint: string; mono?: boolean }) {
  const id = useId();
  return (
    <div className="flex items-start gap-2">
      <input
        id={id}
        type="checkbox"
        className="mt-0.5 h-4 w-4 shrink-0 rounded border-slate-300 text-indigo-600 focus:ring-indigo-600"
        {...input}
      />
      <label htmlFor={id} className="min-w-0 text-sm">
        <span className={`block text-slate-900 dark:text-slate-100 ${mono ? "font-mono text-xs" : "font-medium"}`}>
          {label}
        </span>
        <span className="block text-xs text-slate-500 dark:text-slate-400">{hint}</span>
      </label>
    </div>
  );
}

/** A signing secret, with how to use it: shown after create, on request, and after a rotation. */
function SecretReveal({
  title,
  url,
  secret,
  note,
  onDone,
}: {
  title: string;
  url: string;
  secret: string;
  note?: string;
  onDone: () => void;
}) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves each time a new secret is revealed
  useEffect(() => {
    headingRef.current?.focus();
    headingRef.current?.scrollIntoView({ block: "nearest" });
  }, [secret]);
  return (
    <section
      data-testid="endpoint-secret-panel"
      className="rounded-xl border-2 border-indigo-300 dark:border-indigo-700 bg-indigo-50 dark:bg-indigo-950/60 p-4 shadow-sm sm:p-5"
    >
      <h2
        ref={headingRef}
        tabIndex={-1}
        className="text-base font-semibold text-indigo-950 dark:text-indigo-100 focus:outline-none"
      >
        {title}
      </h2>
      <p className="mt-1 break-all font-mono text-xs text-slate-600 dark:text-slate-400">{url}</p>
      <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-start">
        <code
          data-testid="endpoint-secret"
          className="min-w-0 flex-1 break-all rounded-md bg-white dark:bg-slate-900 px-3 py-2 font-mono text-sm text-slate-900 dark:text-slate-100 ring-1 ring-inset ring-indigo-200 dark:ring-indigo-800"
        >
          {secret}
        </code>
        <CopyButton value={secret} label="Copy secret" />
      </div>
      <p className="mt-3 text-sm text-slate-700 dark:text-slate-300">
        {note ??
          "Verify each event's webhook-signature with this secret (any Standard Webhooks library). It signs only this endpoint's events; your numbers' URLs keep the account's secret."}
      </p>
      <div className="mt-4 flex justify-end">
        <Button onClick={onDone}>Done</Button>
      </div>
    </section>
  );
}

function EndpointList() {
  const trpc = useTRPC();
  const list = useQuery(trpc.webhookEndpoints.list.queryOptions());
  const { reasonFor, seesSecrets } = useRole();
  const forbidden = reasonFor("write", "change endpoints");
  return (
    <QueryState
      query={list}
      loadingLabel="Loading endpoints…"
      empty={(data) =>
        data.webhookEndpoints.length === 0 ? (
          <EmptyState title="No webhook endpoints" data-testid="endpoints-empty">
            Add one above to receive events of every number in one place.
          </EmptyState>
        ) : null
      }
    >
      {({ webhookEndpoints }) => (
        <div className="space-y-3">
          <ForbiddenReason reason={forbidden} id="endpoint-list-forbidden" />
          {seesSecrets ? null : (
            // A viewer never sees a secret (docs/decisions.md §18): no Show or Rotate, and this says why.
            <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="endpoint-secrets-hidden">
              Your role does not show signing secrets. Ask an owner, admin or developer for them.
            </p>
          )}
          <ul className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="endpoint-list">
            {webhookEndpoints.map((e) => (
              <EndpointItem key={e.id} endpoint={e} forbidden={forbidden} seesSecrets={seesSecrets} />
            ))}
          </ul>
        </div>
      )}
    </QueryState>
  );
}

function EndpointItem({
  endpoint: e,
  forbidden,
  seesSecrets,
}: {
  endpoint: Endpoint;
  forbidden: string | null;
  seesSecrets: boolean;
}) {
  const closed = {
    disabled: forbidden !== null,
    "aria-describedby": forbidden ? "endpoint-list-forbidden" : undefined,
  };
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [panel, setPanel] = useState<"test" | null>(null);
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhookEndpoints.list.queryKey() });

  const toggle = useMutation(
    trpc.webhookEndpoints.update.mutationOptions({
      onSuccess: async ({ webhookEndpoint }) => {
        toast.success(webhookEndpoint.enabled ? "Endpoint enabled" : "Endpoint disabled");
        await refresh();
      },
      onError: (err) => toast.error(messageOf(err)),
    }),
  );
  const reveal = useMutation({
    mutationFn: () => queryClient.fetchQuery(trpc.webhookEndpoints.get.queryOptions({ id: e.id }, { staleTime: 0 })),
    onSuccess: ({ webhookEndpoint }) => {
      // A viewer's answer carries no secret (docs/decisions.md §18).
      if (webhookEndpoint.secret === undefined) toast.error("Your role does not show secrets.");
      else setSecret({ value: webhookEndpoint.secret, rotated: false });
    },
    onError: (err) => toast.error(messageOf(err)),
  });
  const rotate = useConfirmedMutation(trpc.webhookEndpoints.rotateSecret.mutationOptions(), {
    variablesOf: () => ({ id: e.id }),
    onSuccess: (r) => {
      toast.success("Secret rotated");
      setSecret({ value: r.secret, rotated: true });
    },
  });
  const remove = useConfirmedMutation(trpc.webhookEndpoints.delete.mutationOptions(), {
    variablesOf: () => ({ id: e.id }),
    onSuccess: async () => {
      toast.success("Endpoint deleted");
      await refresh();
    },
  });

  return (
    <li className="py-4 first:pt-0 last:pb-0" data-testid="endpoint-row" data-endpoint-id={e.id}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0 space-y-1">
          <div className="flex flex-wrap items-center gap-2">
            <Badge tone={e.enabled ? "green" : "slate"} data-testid="endpoint-state">
              {e.enabled ? "Enabled" : "Disabled"}
            </Badge>
            {e.description ? (
              <span className="text-sm font-medium text-slate-900 dark:text-slate-100">{e.description}</span>
            ) : null}
          </div>
          <p className="break-all font-mono text-xs text-slate-700 dark:text-slate-300" data-testid="endpoint-url">
            {e.url}
          </p>
          <div className="flex flex-wrap gap-1" data-testid="endpoint-types-list">
            {typesLabel(e.eventTypes).map((t) => (
              <Badge key={t} tone="indigo">
                {t}
              </Badge>
            ))}
          </div>
          <p className="text-xs text-slate-500 dark:text-slate-400">
            Added <LocalTime iso={e.createdAt} />
          </p>
        </div>
        <div className="flex flex-wrap gap-2 sm:max-w-[22rem] sm:justify-end">
          <Button size="sm" variant="secondary" {...closed} onClick={() => setPanel(panel === "test" ? null : "test")}>
            Send test event
          </Button>
          <Link href={`/dashboard/deliveries?endpoint=${e.id}`} className={buttonClasses("secondary", "sm")}>
            Deliveries
          </Link>
          {seesSecrets ? (
            <>
              <Button size="sm" variant="secondary" loading={reveal.isPending} onClick={() => reveal.mutate()}>
                Show secret
              </Button>
              <Button size="sm" variant="secondary" {...closed} onClick={() => rotate.ask()}>
                Rotate secret
              </Button>
            </>
          ) : null}
          <Button
            size="sm"
            variant="secondary"
            loading={toggle.isPending}
            {...closed}
            onClick={() => toggle.mutate({ id: e.id, enabled: !e.enabled })}
          >
            {e.enabled ? "Disable" : "Enable"}
          </Button>
          <Button size="sm" variant="secondary" {...closed} onClick={() => remove.ask()}>
            Delete
          </Button>
        </div>
      </div>
      {secret ? (
        <div className="mt-4">
          <SecretReveal
            title={secret.rotated ? "The new signing secret" : "Signing secret"}
            url={e.url}
            secret={secret.value}
            note={
              secret.rotated
                ? "For 24 hours events to this endpoint carry signatures from both the old and the new secret: switch your receiver to this one within that time."
                : undefined
            }
            onDone={() => setSecret(null)}
          />
        </div>
      ) : null}
      {panel === "test" ? <EndpointTestEvent endpoint={e} onClose={() => setPanel(null)} /> : null}
      <ConfirmDialog {...rotate.dialog} title="Rotate signing secret" confirmLabel="Rotate secret" tone="primary">
        {`A new secret signs this endpoint's events from now on; the current one keeps signing beside it for 24 hours.`}
      </ConfirmDialog>
      <ConfirmDialog {...remove.dialog} title="Delete endpoint" confirmLabel="Delete endpoint">
        {`Nothing more is sent to ${e.url}, and its queued deliveries are given up. Its deliveries stay in the log. This cannot be undone.`}
      </ConfirmDialog>
    </li>
  );
}

/** Sends a signed sample event to the endpoint now and shows its answer; the attempt is in the delivery log. */
function EndpointTestEvent({ endpoint, onClose }: { endpoint: Endpoint; onClose: () => void }) {
  const subscribed = endpoint.eventTypes.includes(ALL_EVENTS)
    ? TYPE_CHOICES.map((c) => c.type)
    : TYPE_CHOICES.map((c) => c.type).filter((t) => endpoint.eventTypes.includes(t));
  return (
    <TestEventPanel
      target={{ endpointId: endpoint.id }}
      choices={TYPE_CHOICES.map((c) => ({
        type: c.type,
        label: subscribed.includes(c.type) ? c.type : `${c.type} (not subscribed)`,
      }))}
      initialType={subscribed.includes("call.ended") ? "call.ended" : (subscribed[0] ?? "call.ended")}
      testId="endpoint-test"
      onClose={onClose}
      description={
        <>
          A sample event with <code className="font-mono">data.test = true</code>, signed with this endpoint&apos;s
          secret, sent once, now.
        </>
      }
    />
  );
}
