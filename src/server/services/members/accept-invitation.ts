import type { Role } from "../../../shared/roles";
import type { TInvitationPreview } from "../../../shared/schemas/members";
import { hashPassword, verifyPassword } from "../../auth/password";
import { kysely } from "../../db/kysely";
import { sqlTransaction, type SqlTransaction } from "../../db/sql-transaction";
import { AppError } from "../../errors/app-error";
import { sessionPasswordCheckLimits } from "../../rate-limit/credential-limits";
import { enforceCredentialLimits } from "../../rate-limit/enforce-credential-limits";
import { recordAudit } from "../audit/record-audit";
import { signIn } from "../accounts/log-in";
import { hashInvitationToken } from "./invitation-token";

/**
 * docs/decisions.md §18, §22: the mailed link is the only way to accept, and it joins the person whose address
 * was invited, nobody else: an existing sign-in of that address proves itself with its password, else one is
 * made for that address. Opening the link (the page's preview) changes nothing, since mail scanners open links.
 */
type InvitationRow = {
  id: string;
  accountId: string;
  email: string;
  role: Role;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  accountName: string;
  accountClosed: boolean;
};

async function findInvitation(db: SqlTransaction | ReturnType<typeof kysely>, token: string, lock: boolean) {
  let q = db
    .selectFrom("Invitation as i")
    .innerJoin("Account as a", "a.id", "i.accountId")
    .select([
      "i.id",
      "i.accountId",
      "i.email",
      "i.role",
      "i.expiresAt",
      "i.acceptedAt",
      "i.revokedAt",
      "a.companyName",
      "a.email as accountEmail",
      "a.deletedAt",
    ])
    .where("i.tokenHash", "=", hashInvitationToken(token));
  if (lock) q = q.forUpdate("i");
  const row = await q.executeTakeFirst();
  if (!row) return null;
  const { companyName, accountEmail, deletedAt, ...rest } = row;
  return { ...rest, accountName: companyName ?? accountEmail, accountClosed: deletedAt !== null } as InvitationRow;
}

function stateOf(row: InvitationRow | null, now = new Date()): TInvitationPreview["state"] {
  if (!row || row.accountClosed) return "unknown";
  if (row.acceptedAt) return "accepted";
  if (row.revokedAt) return "revoked";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  return "pending";
}

const REFUSALS: Record<Exclude<TInvitationPreview["state"], "pending">, string> = {
  unknown: "This invitation link is not valid. Ask the account's owner or an admin for a new invitation.",
  accepted: "This invitation was already used. Log in instead.",
  revoked:
    "This invitation was withdrawn or replaced by a newer one. Use the newest mail, or ask for a new invitation.",
  expired: "This invitation expired (links work for 7 days). Ask for a new invitation.",
};

/** Unknown, used, withdrawn and expired links are 400 with what to do; a closed account's is 404 (§20). */
function usable(row: InvitationRow | null): InvitationRow {
  if (row?.accountClosed) throw new AppError("NOT_FOUND", "This invitation belongs to a closed account.");
  const state = stateOf(row);
  if (state !== "pending")
    throw new AppError("VALIDATION_FAILED", REFUSALS[state], { details: [{ path: "token", message: state }] });
  return row as InvitationRow;
}

/** What the link's page shows: whose account, which role, and whether the address already has a sign-in. */
export async function previewInvitation(opts: { token: string }): Promise<TInvitationPreview> {
  const row = await findInvitation(kysely(), opts.token, false);
  const state = stateOf(row);
  if (!row || state === "unknown")
    return { state: "unknown", accountName: null, email: null, role: null, hasLogin: false };
  const user = await kysely().selectFrom("User").select("id").where("email", "=", row.email).executeTakeFirst();
  return { state, accountName: row.accountName, email: row.email, role: row.role, hasLogin: user !== undefined };
}

/**
 * The claim: the invitation row is locked and checked again, so two submissions of one link cannot both join,
 * and a link revoked while the password was being hashed no longer works.
 */
async function join(trx: SqlTransaction, token: string, user: { id: string; email: string }, ip: string) {
  const row = usable(await findInvitation(trx, token, true));
  const now = new Date();
  await trx
    .updateTable("Invitation")
    .set({ acceptedAt: now, acceptedByUserId: user.id })
    .where("id", "=", row.id)
    .execute();
  // Someone already in the account (added meanwhile) keeps the role they have: an invitation never demotes.
  const membership = await trx
    .insertInto("Membership")
    .values({ accountId: row.accountId, userId: user.id, role: row.role })
    .onConflict((oc) => oc.columns(["accountId", "userId"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (membership)
    await recordAudit(trx, {
      accountId: row.accountId,
      origin: { actor: { type: "member", userId: user.id, email: user.email }, ip },
      action: "member.joined",
      target: { type: "member", id: membership.id },
      details: { invitationId: row.id, role: row.role },
    });
  return row.accountId;
}

/** A new sign-in for the invited address, joined to the account; the address counts as verified: the link reached it. */
export async function acceptInvitationSignUp(opts: { token: string; password: string; ip: string }) {
  const invitation = usable(await findInvitation(kysely(), opts.token, false));
  const passwordHash = await hashPassword(opts.password);
  const joined = await sqlTransaction(async (trx) => {
    const user = await trx
      .insertInto("User")
      .values({ email: invitation.email, passwordHash, emailVerifiedAt: new Date() })
      .onConflict((oc) => oc.column("email").doNothing())
      .returning(["id", "email", "sessionVersion"])
      .executeTakeFirst();
    if (!user)
      throw new AppError(
        "EMAIL_TAKEN",
        `${invitation.email} already has a sign-in: sign in with its password instead.`,
      );
    return { user, accountId: await join(trx, opts.token, user, opts.ip) };
  });
  return signIn({
    userId: joined.user.id,
    accountId: joined.accountId,
    sessionVersion: joined.user.sessionVersion,
    previous: null,
  });
}

/**
 * The invited address's existing sign-in, by its password (counted against log-in's limits for that address,
 * docs/decisions.md §20), joined to the account. A person with two-factor joins but gets no token here: the
 * second factor is asked by log-in (with `accountId`), the one place that checks it.
 */
export async function acceptInvitationSignIn(opts: { token: string; password: string; ip: string }) {
  const invitation = usable(await findInvitation(kysely(), opts.token, false));
  await enforceCredentialLimits(sessionPasswordCheckLimits({ ip: opts.ip, email: invitation.email }));
  const user = await kysely()
    .selectFrom("User")
    .select(["id", "email", "passwordHash", "sessionVersion", "lastAccountId", "twoFactorEnabledAt"])
    .where("email", "=", invitation.email)
    .executeTakeFirst();
  // The link's holder already knows the address, so saying it has no sign-in reveals nothing to them.
  if (!user)
    throw new AppError("UNAUTHORIZED", `${invitation.email} has no sign-in yet: create one with this invitation.`);
  if (!(await verifyPassword(user.passwordHash, opts.password)))
    throw new AppError("UNAUTHORIZED", "Invalid email or password.");
  const accountId = await sqlTransaction((trx) => join(trx, opts.token, user, opts.ip));
  if (user.twoFactorEnabledAt) return { accountId, token: null, expiresAt: null };
  return signIn({ userId: user.id, accountId, sessionVersion: user.sessionVersion, previous: user.lastAccountId });
}
