import { z } from "zod";
import { ROLES } from "../roles";
import { ZEmail, ZPassword } from "./auth";
import { ZId, ZTimestamp } from "./common";
import { boundedString, EMAIL_MAX_CHARS, MEMBERS_MAX_ITEMS, TOKEN_MAX_CHARS } from "./bounds";

/** docs/decisions.md §18: a member's role in one account. */
const ZRole = z
  .enum(ROLES)
  .describe(
    "`owner`: everything; `admin`: everything but closing the account and changing owners; `developer`: numbers, keys, calls, deliveries, endpoints; `viewer`: read only, never a secret",
  );

const ZMember = z
  .object({
    id: ZId.describe("The membership's id: the `{id}` of PATCH and DELETE /api/members/{id}"),
    userId: ZId.describe("The person's id, the same in every account they belong to"),
    email: boundedString(EMAIL_MAX_CHARS).describe("The person's sign-in address, lower-cased"),
    role: ZRole,
    joinedAt: ZTimestamp.describe("When they joined this account"),
    twoFactorEnabled: z.boolean().describe("Whether they sign in with a second factor"),
  })
  .meta({ id: "Member" });

export const ZListMembersOutput = z.object({
  members: z
    .array(ZMember)
    .max(MEMBERS_MAX_ITEMS)
    .describe(
      `Every member of the account, oldest first (members and pending invitations: at most ${MEMBERS_MAX_ITEMS})`,
    ),
});

export const ZInviteMemberInput = z.object({
  email: ZEmail.describe("Where the invitation link is mailed; the person signs in (or signs up) with this address"),
  role: ZRole.describe(
    "The role they join with: at most your own; only an owner invites an owner. An address already invited gets a new link, and the old one stops working",
  ),
});

const ZInvitation = z
  .object({
    id: ZId.describe("The invitation's id: the `{id}` of DELETE /api/members/invitations/{id}"),
    email: boundedString(EMAIL_MAX_CHARS).describe("The invited address, lower-cased"),
    role: ZRole,
    expiresAt: ZTimestamp.describe("After this the link no longer works (7 days after it was sent)"),
    createdAt: ZTimestamp.describe("When it was sent"),
  })
  .meta({ id: "Invitation" });

export const ZInviteMemberOutput = z.object({
  invitation: ZInvitation.describe("The pending invitation; the link itself is only in the mail"),
});

export const ZListInvitationsOutput = z.object({
  invitations: z
    .array(ZInvitation)
    .max(MEMBERS_MAX_ITEMS)
    .describe("Invitations neither accepted, revoked nor expired, newest first"),
});

export const ZRevokeInvitationInput = z.object({ id: ZId.describe("The invitation's id") });
export const ZRevokeInvitationOutput = z.object({
  revoked: z.literal(true).describe("The link no longer works"),
});

export const ZChangeMemberRoleInput = z.object({
  id: ZId.describe("The membership's id (`members[].id`)"),
  role: ZRole.describe(
    "The new role: at most your own; only an owner makes, demotes or changes an owner; the last owner cannot be demoted (409 LAST_OWNER). Applies from the member's next request",
  ),
});
export const ZChangeMemberRoleOutput = z.object({
  member: ZMember.describe("The member with their new role, in force from their next request"),
});

export const ZRemoveMemberInput = z.object({
  id: ZId.describe("The membership's id (`members[].id`); your own is leaving the account"),
});
export const ZRemoveMemberOutput = z.object({
  removed: z.literal(true).describe("The person is out of the account: their sessions for it have ended"),
});

const ZInvitationToken = z
  .string()
  .min(1)
  .max(200)
  .describe("The token of the mailed link (`/invitations/{token}`): the only way to accept");

export const ZAcceptInvitationSignUpInput = z.object({
  token: ZInvitationToken,
  password: ZPassword.describe(
    "The password of the new sign-in for the invited address (8 to 256 characters; stored only as an argon2id hash)",
  ),
});

export const ZAcceptInvitationSignInInput = z.object({
  token: ZInvitationToken,
  password: z.string().min(1).max(256).describe("The password of the existing sign-in of the invited address"),
});

export const ZAcceptInvitationOutput = z.object({
  accountId: ZId.describe("The account joined"),
  token: boundedString(TOKEN_MAX_CHARS)
    .nullable()
    .describe(
      "Login JWT for the joined account (as POST /api/auth/login gives); null when the person signs in with two-factor: log in with `accountId` then",
    ),
  expiresAt: ZTimestamp.nullable().describe("When `token` stops working (24 hours); null with no token"),
});

export const ZInvitationPreviewInput = z.object({ token: ZInvitationToken });
export const ZInvitationPreviewOutput = z.object({
  state: z.enum(["pending", "expired", "accepted", "revoked", "unknown"]),
  accountName: z.string().nullable(),
  email: z.string().nullable(),
  role: ZRole.nullable(),
  hasLogin: z.boolean(),
});
export type TInvitationPreview = z.infer<typeof ZInvitationPreviewOutput>;
