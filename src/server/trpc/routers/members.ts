import {
  ZAcceptInvitationOutput,
  ZAcceptInvitationSignInInput,
  ZAcceptInvitationSignUpInput,
  ZChangeMemberRoleInput,
  ZChangeMemberRoleOutput,
  ZInvitationPreviewInput,
  ZInvitationPreviewOutput,
  ZInviteMemberInput,
  ZInviteMemberOutput,
  ZListInvitationsOutput,
  ZListMembersOutput,
  ZRemoveMemberInput,
  ZRemoveMemberOutput,
  ZRevokeInvitationInput,
  ZRevokeInvitationOutput,
} from "../../../shared/schemas/members";
import { originOf } from "../../services/audit/record-audit";
import {
  acceptInvitationSignIn,
  acceptInvitationSignUp,
  previewInvitation,
} from "../../services/members/accept-invitation";
import { changeMemberRole } from "../../services/members/change-member-role";
import { inviteMember, revokeInvitation } from "../../services/members/invite-member";
import { listInvitations, listMembers } from "../../services/members/list-members";
import { removeMember } from "../../services/members/remove-member";
import { restProcedure } from "../rest-procedure";
import { apiProcedure, credentialProcedure, publicProcedure } from "../init";
import { exampleAccount, exampleTime } from "./example-values";

const exampleMember = {
  id: "cmwra3k2p00032c7d5f1h8j2m",
  userId: "cmwra2uwb00012c7dq3n0v9xs",
  email: "ada@example.com",
  role: "developer" as const,
  joinedAt: exampleTime,
  twoFactorEnabled: true,
};
const exampleInvitation = {
  id: "cmwra4d7s00042c7d2k9w6e1r",
  email: "grace@example.com",
  role: "viewer" as const,
  expiresAt: "2026-11-29T10:00:00.000Z",
  createdAt: "2026-11-22T10:00:00.000Z",
};
const exampleJwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjbXdyYTJ1d2IwMDAyMmM3ZGVuZDc5dXh3In0.c2lnbmF0dXJl";
const exampleToken = "Jb1y1i5wG2mQ8rXkZ0cVt3uHnA7pLdE4sFoW9qYiR6M";

/**
 * docs/decisions.md §18, §22: the members of an account and its invitations. Every route needs `members`
 * (an owner or admin; a developer or viewer gets 403); whether a member may touch an owner is the services'
 * rule (src/shared/roles.ts canManageOwners). Accepting takes the mailed token, which is the credential.
 */
export const members = {
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/members",
    needs: "members",
    summary: "List the account's members and their roles",
    output: ZListMembersOutput,
    examples: { response: { members: [exampleMember] } },
  }).query(({ ctx }) => listMembers({ accountId: ctx.auth.account.id })),
  invite: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/members/invitations",
    needs: "members",
    status: 201,
    summary: "Invite someone by email: the mailed link works for 7 days",
    errors: [409],
    input: ZInviteMemberInput,
    output: ZInviteMemberOutput,
    examples: {
      request: { email: "grace@example.com", role: "viewer" },
      response: { invitation: exampleInvitation },
    },
  }).mutation(({ ctx, input }) =>
    inviteMember({
      accountId: ctx.auth.account.id,
      callerRole: ctx.auth.role,
      invitedBy: ctx.auth.user && { userId: ctx.auth.user.id, email: ctx.auth.user.email },
      email: input.email,
      role: input.role,
      origin: originOf(ctx.auth, ctx.ip),
    }),
  ),
  invitations: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/members/invitations",
    needs: "members",
    summary: "List the pending invitations",
    output: ZListInvitationsOutput,
    examples: { response: { invitations: [exampleInvitation] } },
  }).query(({ ctx }) => listInvitations({ accountId: ctx.auth.account.id })),
  revokeInvitation: restProcedure(apiProcedure, {
    method: "DELETE",
    path: "/api/members/invitations/:id",
    needs: "members",
    summary: "Withdraw a pending invitation: its link stops working",
    input: ZRevokeInvitationInput,
    output: ZRevokeInvitationOutput,
    examples: { response: { revoked: true } },
  }).mutation(({ ctx, input }) =>
    revokeInvitation({
      accountId: ctx.auth.account.id,
      callerRole: ctx.auth.role,
      id: input.id,
      origin: originOf(ctx.auth, ctx.ip),
    }),
  ),
  changeRole: restProcedure(apiProcedure, {
    method: "PATCH",
    path: "/api/members/:id",
    needs: "members",
    summary: "Change a member's role (from their next request)",
    errors: [409],
    input: ZChangeMemberRoleInput,
    output: ZChangeMemberRoleOutput,
    examples: { request: { role: "admin" }, response: { member: { ...exampleMember, role: "admin" } } },
  }).mutation(({ ctx, input }) =>
    changeMemberRole({
      accountId: ctx.auth.account.id,
      callerRole: ctx.auth.role,
      id: input.id,
      role: input.role,
      origin: originOf(ctx.auth, ctx.ip),
    }),
  ),
  remove: restProcedure(apiProcedure, {
    method: "DELETE",
    path: "/api/members/:id",
    needs: "members",
    summary: "Remove a member (your own id: leave); their sessions for the account end at once",
    errors: [409],
    input: ZRemoveMemberInput,
    output: ZRemoveMemberOutput,
    examples: { response: { removed: true } },
  }).mutation(({ ctx, input }) =>
    removeMember({
      accountId: ctx.auth.account.id,
      callerRole: ctx.auth.role,
      callerUserId: ctx.auth.user?.id ?? null,
      id: input.id,
      origin: originOf(ctx.auth, ctx.ip),
    }),
  ),
  acceptWithSignUp: restProcedure(credentialProcedure, {
    method: "POST",
    path: "/api/invitations/accept/sign-up",
    needs: "none",
    summary: "Accept an invitation with a new sign-in for the invited address",
    errors: [409],
    input: ZAcceptInvitationSignUpInput,
    output: ZAcceptInvitationOutput,
    examples: {
      request: { token: exampleToken, password: "correct horse" },
      response: { accountId: exampleAccount.id, token: exampleJwt, expiresAt: exampleTime },
    },
  }).mutation(({ ctx, input }) => acceptInvitationSignUp({ ...input, ip: ctx.ip })),
  acceptWithSignIn: restProcedure(credentialProcedure, {
    method: "POST",
    path: "/api/invitations/accept/sign-in",
    needs: "none",
    summary: "Accept an invitation with the invited address's existing sign-in",
    errors: [401],
    input: ZAcceptInvitationSignInInput,
    output: ZAcceptInvitationOutput,
    examples: {
      request: { token: exampleToken, password: "correct horse" },
      response: { accountId: exampleAccount.id, token: exampleJwt, expiresAt: exampleTime },
    },
  }).mutation(({ ctx, input }) => acceptInvitationSignIn({ ...input, ip: ctx.ip })),
  /** The link's page (`/invitations/{token}`): the dashboard's only; opening it changes nothing. */
  invitationPreview: publicProcedure
    .meta({ needs: "none" })
    .input(ZInvitationPreviewInput)
    .output(ZInvitationPreviewOutput)
    .query(({ input }) => previewInvitation(input)),
};
