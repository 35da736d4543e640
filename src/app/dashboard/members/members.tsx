"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader, Panel } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { SelectField, TextField } from "@/components/ui/field";
import { ForbiddenReason } from "@/components/ui/forbidden-reason";
import { LocalTime } from "@/components/ui/local-time";
import { QueryState } from "@/components/ui/query-state";
import { EmptyState } from "@/components/ui/states";
import { Table, Td } from "@/components/ui/table";
import { useShowError } from "@/client/show-error";
import { useToast } from "@/client/toast";
import { useTRPC } from "@/client/trpc/client";
import { useApiForm } from "@/client/use-api-form";
import { useConfirmedMutation } from "@/client/use-confirmed-mutation";
import {
  canManageOwners,
  ROLE_DESCRIPTIONS,
  ROLE_LABELS,
  ROLES,
  roleAllows,
  roleAtMost,
  type Role,
} from "@/shared/roles";
import { ZInviteMemberInput } from "@/shared/schemas/members";
import type { AppRouter } from "@/server/trpc/root";

type Outputs = inferRouterOutputs<AppRouter>;
type Member = Outputs["members"]["list"]["members"][number];
type Invitation = Outputs["members"]["invitations"]["invitations"][number];

/** The roles `me` may hand out (src/shared/roles.ts): never more than their own; owner only by an owner. */
function grantable(me: Role): Role[] {
  return ROLES.filter((r) => roleAtMost(r, me) && (r !== "owner" || canManageOwners(me)));
}

/** docs/decisions.md §18: the account's members, invitations and roles; an owner or admin manages them. */
export function Members() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  return (
    <>
      <PageHeader
        title="Members"
        description="The people who can sign in to this account, and what each may do. A change of role applies from their next request; a removed member is signed out of this account at once."
      />
      <QueryState query={me} loadingLabel="Loading…">
        {(who) =>
          roleAllows(who.role, "members") ? (
            <div className="space-y-6">
              <InviteForm myRole={who.role} />
              <Panel title="Members">
                <MemberList myRole={who.role} myUserId={who.user?.id ?? null} />
              </Panel>
              <Panel title="Pending invitations">
                <InvitationList myRole={who.role} />
              </Panel>
            </div>
          ) : (
            <EmptyState title="Members are managed by owners and admins" data-testid="members-not-allowed">
              {`Your role here is ${ROLE_LABELS[who.role]}: ${ROLE_DESCRIPTIONS[who.role]} Ask an owner or admin to change a member or invite someone.`}
            </EmptyState>
          )
        }
      </QueryState>
    </>
  );
}

function InviteForm({ myRole }: { myRole: Role }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const roles = grantable(myRole);
  const { form, field, fail, onSubmit } = useApiForm({
    schema: ZInviteMemberInput,
    names: { email: "Email", role: "Role" },
    defaultValues: { email: "", role: "developer" },
  });
  const role = form.watch("role") as Role;
  const invite = useMutation(
    trpc.members.invite.mutationOptions({
      onSuccess: async ({ invitation }) => {
        form.reset({ email: "", role: invitation.role });
        toast.success(`Invitation sent to ${invitation.email}`);
        await queryClient.invalidateQueries({ queryKey: trpc.members.invitations.queryKey() });
      },
      onError: fail,
    }),
  );
  return (
    <Panel title="Invite someone">
      <form
        onSubmit={onSubmit((input) => invite.mutate(input))}
        noValidate
        data-testid="invite-form"
        className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-start"
      >
        <TextField
          label="Email"
          type="email"
          autoComplete="off"
          hint="They get a link that works for 7 days."
          {...field("email")}
          className="sm:max-w-md sm:flex-1"
        />
        <SelectField label="Role" {...form.register("role")} data-testid="invite-role" className="sm:w-44">
          {roles.map((r) => (
            <option key={r} value={r}>
              {ROLE_LABELS[r]}
            </option>
          ))}
        </SelectField>
        <Button type="submit" loading={invite.isPending} className="sm:mt-6" data-testid="invite-submit">
          Send invitation
        </Button>
      </form>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400" data-testid="invite-role-description">
        {ROLE_LABELS[role] ?? ""}: {ROLE_DESCRIPTIONS[role] ?? ""}
      </p>
      {!canManageOwners(myRole) ? <ForbiddenReason reason="Only an owner can invite an owner." /> : null}
    </Panel>
  );
}

/** Why `me` may not change or remove `m` (null: they may). */
function lockedReason(me: Role, m: Member): string | null {
  if (m.role === "owner" && !canManageOwners(me)) return "Only an owner can change or remove an owner.";
  return null;
}

function MemberList({ myRole, myUserId }: { myRole: Role; myUserId: string | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const showError = useShowError();
  const list = useQuery(trpc.members.list.queryOptions());
  const [pending, setPending] = useState<Record<string, Role>>({});
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
  const change = useMutation(
    trpc.members.changeRole.mutationOptions({
      onSuccess: async ({ member }) => {
        toast.success(`${member.email} is now ${ROLE_LABELS[member.role]}`);
        setPending(({ [member.id]: _, ...rest }) => rest);
        await refresh();
      },
      onError: (err) => showError(err),
    }),
  );
  const remove = useConfirmedMutation(trpc.members.remove.mutationOptions(), {
    variablesOf: (m: Member) => ({ id: m.id }),
    onSuccess: async (_, m) => {
      // Having left, this session belongs to no membership here any more: it ends.
      if (m.userId === myUserId) {
        await signOut({ callbackUrl: "/login" });
        return;
      }
      toast.success(`${m.email} removed`);
      await refresh();
    },
  });
  const subject = remove.subject;
  const roles = grantable(myRole);
  return (
    <QueryState query={list} loadingLabel="Loading members…">
      {({ members }) => (
        <>
          <Table head={["Email", "Role", "Two-factor", "Joined", ""]} data-testid="members-table">
            {members.map((m) => {
              const locked = lockedReason(myRole, m);
              const chosen = pending[m.id] ?? m.role;
              const self = m.userId === myUserId;
              return (
                <tr key={m.id} data-testid="member-row" data-email={m.email}>
                  <Td label="Email">
                    <span className="break-all">{m.email}</span>
                    {self ? (
                      <Badge tone="indigo" data-testid="member-you">
                        you
                      </Badge>
                    ) : null}
                  </Td>
                  <Td label="Role">
                    {locked ? (
                      <span data-testid="member-role">{ROLE_LABELS[m.role]}</span>
                    ) : (
                      <div className="flex items-end gap-2">
                        <SelectField
                          label={`Role of ${m.email}`}
                          value={chosen}
                          onChange={(e) => setPending((p) => ({ ...p, [m.id]: e.target.value as Role }))}
                          data-testid="member-role-select"
                          className="[&>label]:sr-only"
                        >
                          {(roles.includes(m.role) ? roles : [m.role, ...roles]).map((r) => (
                            <option key={r} value={r}>
                              {ROLE_LABELS[r]}
                            </option>
                          ))}
                        </SelectField>
                        {chosen !== m.role ? (
                          <Button
                            size="sm"
                            loading={change.isPending}
                            onClick={() => change.mutate({ id: m.id, role: chosen })}
                            data-testid="member-role-save"
                          >
                            Save
                          </Button>
                        ) : null}
                      </div>
                    )}
                  </Td>
                  <Td label="Two-factor">{m.twoFactorEnabled ? "on" : "off"}</Td>
                  <Td label="Joined">
                    <LocalTime iso={m.joinedAt} />
                  </Td>
                  <Td className="text-right">
                    {locked ? (
                      <ForbiddenReason reason={locked} />
                    ) : (
                      <Button variant="secondary" size="sm" onClick={() => remove.ask(m)} data-testid="member-remove">
                        {self ? "Leave" : "Remove"}
                      </Button>
                    )}
                  </Td>
                </tr>
              );
            })}
          </Table>
          <ConfirmDialog
            {...remove.dialog}
            title={subject?.userId === myUserId ? "Leave this account" : "Remove member"}
            confirmLabel={subject?.userId === myUserId ? "Leave" : "Remove"}
          >
            {subject
              ? subject.userId === myUserId
                ? "You will be signed out of this account at once and need a new invitation to come back."
                : `${subject.email} will be signed out of this account at once. Their API keys stay with the account.`
              : null}
          </ConfirmDialog>
        </>
      )}
    </QueryState>
  );
}

function InvitationList({ myRole }: { myRole: Role }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const list = useQuery(trpc.members.invitations.queryOptions());
  const revoke = useConfirmedMutation(trpc.members.revokeInvitation.mutationOptions(), {
    variablesOf: (i: Invitation) => ({ id: i.id }),
    onSuccess: async (_, i) => {
      toast.success(`Invitation to ${i.email} withdrawn`);
      await queryClient.invalidateQueries({ queryKey: trpc.members.invitations.queryKey() });
    },
  });
  return (
    <QueryState query={list} loadingLabel="Loading invitations…">
      {({ invitations }) => (
        <>
          {invitations.length === 0 ? (
            <EmptyState title="No pending invitations" data-testid="invitations-empty">
              Invite someone above; their invitation waits here until they accept it.
            </EmptyState>
          ) : (
            <Table head={["Email", "Role", "Sent", "Expires", ""]} data-testid="invitations-table">
              {invitations.map((i) => (
                <tr key={i.id} data-testid="invitation-row" data-email={i.email}>
                  <Td label="Email">
                    <span className="break-all">{i.email}</span>
                  </Td>
                  <Td label="Role">{ROLE_LABELS[i.role]}</Td>
                  <Td label="Sent">
                    <LocalTime iso={i.createdAt} />
                  </Td>
                  <Td label="Expires">
                    <LocalTime iso={i.expiresAt} />
                  </Td>
                  <Td className="text-right">
                    {i.role === "owner" && !canManageOwners(myRole) ? (
                      <ForbiddenReason reason="Only an owner can withdraw an owner's invitation." />
                    ) : (
                      <Button variant="secondary" size="sm" onClick={() => revoke.ask(i)}>
                        Withdraw
                      </Button>
                    )}
                  </Td>
                </tr>
              ))}
            </Table>
          )}
          <ConfirmDialog {...revoke.dialog} title="Withdraw invitation" confirmLabel="Withdraw">
            {revoke.subject ? `The link sent to ${revoke.subject.email} will stop working.` : null}
          </ConfirmDialog>
        </>
      )}
    </QueryState>
  );
}
