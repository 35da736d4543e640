import { sql } from "kysely";
import { AppError } from "../../errors/app-error";
import { decryptSecret, encryptSecret } from "../../crypto/secret-box";
import { kysely } from "../../db/kysely";
import { type SqlTransaction, sqlTransaction } from "../../db/sql-transaction";
import { type AuditOrigin, recordAudit } from "../audit/record-audit";
import { hashRecoveryCode, looksLikeRecoveryCode, matchRecoveryCode, newRecoveryCodes } from "./recovery-codes";
import { matchTotp, newTotpSecret, otpauthUrl } from "./totp";

/**
 * docs/decisions.md §18 and §22: a person's two-factor sign-in. Turning it on is two steps, so that it is never
 * on before their app has the secret: `begin` stores a new secret (encrypted) without turning anything on;
 * `confirm` with a code from the app turns it on and hands out the recovery codes, once. Changes are recorded in
 * the audit log of the account the person is signed in to (`accountId`), the one place they were made from.
 */
type Actor = { userId: string; accountId: string; origin: AuditOrigin; at?: number };

async function userRow(trx: SqlTransaction, userId: string) {
  const user = await trx
    .selectFrom("User")
    .select(["id", "email", "totpSecretEnc", "twoFactorEnabledAt", "totpLastStep"])
    .where("id", "=", userId)
    .forUpdate()
    .executeTakeFirst();
  if (!user) throw new AppError("UNAUTHORIZED", "Invalid or expired token.");
  return user;
}

export async function beginTwoFactor(opts: { userId: string }): Promise<{ secret: string; otpauthUrl: string }> {
  return sqlTransaction(async (trx) => {
    const user = await userRow(trx, opts.userId);
    if (user.twoFactorEnabledAt)
      throw new AppError(
        "VALIDATION_FAILED",
        "Two-factor sign-in is already on. Turn it off first (DELETE /api/auth/two-factor) to use a new secret.",
      );
    // Starting again (a lost QR code) replaces the unconfirmed secret: only the latest one can be confirmed.
    const secret = newTotpSecret();
    await trx
      .updateTable("User")
      .set({ totpSecretEnc: encryptSecret(secret), totpLastStep: null, updatedAt: new Date() })
      .where("id", "=", user.id)
      .execute();
    return { secret, otpauthUrl: otpauthUrl(secret, user.email) };
  });
}

export async function confirmTwoFactor(opts: Actor & { code: string }): Promise<{ recoveryCodes: string[] }> {
  return sqlTransaction(async (trx) => {
    const user = await userRow(trx, opts.userId);
    if (user.twoFactorEnabledAt) throw new AppError("VALIDATION_FAILED", "Two-factor sign-in is already on.");
    if (!user.totpSecretEnc)
      throw new AppError("VALIDATION_FAILED", "Start first (POST /api/auth/two-factor), then confirm with a code.");
    const step = matchTotp(decryptSecret(user.totpSecretEnc), opts.code, { at: opts.at });
    if (step === null)
      throw new AppError("VALIDATION_FAILED", "That code does not match; check the app's clock and try the next one.", {
        details: [{ path: "code", message: "does not match the secret" }],
      });
    // The confirming code is spent: it cannot also sign in.
    await trx
      .updateTable("User")
      .set({ twoFactorEnabledAt: new Date(), totpLastStep: String(step), updatedAt: new Date() })
      .where("id", "=", user.id)
      .execute();
    const recoveryCodes = await replaceRecoveryCodes(trx, user.id);
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "user.two_factor_enabled",
      target: { type: "user", id: user.id },
    });
    return { recoveryCodes };
  });
}

export async function disableTwoFactor(opts: Actor & { code: string }): Promise<{ twoFactorEnabled: false }> {
  return sqlTransaction(async (trx) => {
    const user = await userRow(trx, opts.userId);
    if (!user.twoFactorEnabledAt) throw new AppError("VALIDATION_FAILED", "Two-factor sign-in is not on.");
    await spendSecondFactor(trx, user, opts.code, opts.at);
    await trx
      .updateTable("User")
      .set({ totpSecretEnc: null, twoFactorEnabledAt: null, totpLastStep: null, updatedAt: new Date() })
      .where("id", "=", user.id)
      .execute();
    await trx.deleteFrom("RecoveryCode").where("userId", "=", user.id).execute();
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "user.two_factor_disabled",
      target: { type: "user", id: user.id },
    });
    return { twoFactorEnabled: false as const };
  });
}

/** Ten new recovery codes; the old ones, used or not, stop working. */
export async function regenerateRecoveryCodes(opts: Actor & { code: string }): Promise<{ recoveryCodes: string[] }> {
  return sqlTransaction(async (trx) => {
    const user = await userRow(trx, opts.userId);
    if (!user.twoFactorEnabledAt) throw new AppError("VALIDATION_FAILED", "Two-factor sign-in is not on.");
    await spendSecondFactor(trx, user, opts.code, opts.at);
    const recoveryCodes = await replaceRecoveryCodes(trx, user.id);
    await recordAudit(trx, {
      accountId: opts.accountId,
      origin: opts.origin,
      action: "user.recovery_codes_regenerated",
      target: { type: "user", id: user.id },
    });
    return { recoveryCodes };
  });
}

export async function twoFactorStatus(opts: { userId: string; accountId: string; role: string }) {
  const row = await kysely()
    .selectFrom("User as u")
    .innerJoin("Account as a", (j) => j.on("a.id", "=", opts.accountId))
    .select((eb) => [
      "u.twoFactorEnabledAt",
      "a.requireTwoFactor",
      eb
        .selectFrom("RecoveryCode as r")
        .select((e) => e.fn.countAll<string>().as("n"))
        .whereRef("r.userId", "=", "u.id")
        .where("r.usedAt", "is", null)
        .as("left"),
    ])
    .where("u.id", "=", opts.userId)
    .executeTakeFirstOrThrow();
  return {
    enabled: row.twoFactorEnabledAt !== null,
    enabledAt: row.twoFactorEnabledAt?.toISOString() ?? null,
    recoveryCodesLeft: row.twoFactorEnabledAt ? Number(row.left ?? 0) : 0,
    accountRequires: row.requireTwoFactor,
    isOwner: opts.role === "owner",
  };
}

/**
 * An owner requires two-factor of every member, or stops requiring it. Turning it on needs the owner's own
 * two-factor first: otherwise the switch would shut the owner out of everything but the Security page at once.
 */
export async function setTwoFactorPolicy(opts: {
  userId: string;
  accountId: string;
  origin: AuditOrigin;
  required: boolean;
}): Promise<{ required: boolean }> {
  return sqlTransaction(async (trx) => {
    if (opts.required) {
      const me = await trx
        .selectFrom("User")
        .select("twoFactorEnabledAt")
        .where("id", "=", opts.userId)
        .executeTakeFirst();
      if (!me?.twoFactorEnabledAt)
        throw new AppError(
          "VALIDATION_FAILED",
          "Turn on two-factor sign-in for yourself first (POST /api/auth/two-factor), then require it of every member.",
        );
    }
    const before = await trx
      .updateTable("Account")
      .set({ requireTwoFactor: opts.required })
      .where("id", "=", opts.accountId)
      .where("requireTwoFactor", "!=", opts.required)
      .returning("id")
      .executeTakeFirst();
    // Only a change is a change: setting what is already set writes no audit entry.
    if (before)
      await recordAudit(trx, {
        accountId: opts.accountId,
        origin: opts.origin,
        action: "account.two_factor_required",
        target: { type: "account", id: opts.accountId },
        details: { required: opts.required },
      });
    return { required: opts.required };
  });
}

/**
 * docs/decisions.md §22, for sign-in: a user with two-factor on gives a `code` from the app or a
 * `recoveryCode`. Missing both is TWO_FACTOR_REQUIRED (the client asks for one); a wrong or spent one is one
 * sentence whichever it was. Called after the password has verified; each attempt has already been counted
 * against the log-in rate limits, so guessing codes is no faster than guessing passwords.
 */
export async function checkSecondFactorForLogin(opts: {
  userId: string;
  code?: string;
  recoveryCode?: string;
  at?: number;
}): Promise<void> {
  if (opts.code === undefined && opts.recoveryCode === undefined)
    throw new AppError(
      "TWO_FACTOR_REQUIRED",
      "Two-factor sign-in is on for this user: send `code` (from the authenticator app) or `recoveryCode`.",
    );
  await sqlTransaction(async (trx) => {
    const user = await userRow(trx, opts.userId);
    if (!user.twoFactorEnabledAt) return;
    const ok =
      opts.code !== undefined
        ? await spendTotp(trx, user, opts.code, opts.at)
        : await spendRecoveryCode(trx, user.id, opts.recoveryCode ?? "");
    if (!ok) throw new AppError("UNAUTHORIZED", "Invalid two-factor code.");
  });
}

type UserRow = Awaited<ReturnType<typeof userRow>>;

/**
 * A TOTP code or a recovery code, for a signed-in person's own changes: told apart by shape (six digits are
 * never a recovery code). A wrong one is a 400 on the field, not a 401: the session itself is fine.
 */
async function spendSecondFactor(trx: SqlTransaction, user: UserRow, typed: string, at?: number): Promise<void> {
  const code = typed.trim();
  const ok = /^\d{6}$/.test(code)
    ? await spendTotp(trx, user, code, at)
    : looksLikeRecoveryCode(code) && (await spendRecoveryCode(trx, user.id, code));
  if (!ok)
    throw new AppError("VALIDATION_FAILED", "Invalid two-factor code.", {
      details: [{ path: "code", message: "is not a current code from your app nor an unused recovery code" }],
    });
}

/**
 * Whether `code` is good for a step after the last one accepted; the step is recorded in the same statement
 * that checks it, so two requests racing with one code cannot both pass: the second finds the step taken.
 */
async function spendTotp(trx: SqlTransaction, user: UserRow, code: string, at?: number): Promise<boolean> {
  if (!user.totpSecretEnc) return false;
  const last = user.totpLastStep === null ? null : Number(user.totpLastStep);
  const step = matchTotp(decryptSecret(user.totpSecretEnc), code, { at, afterStep: last });
  if (step === null) return false;
  const taken = await trx
    .updateTable("User")
    .set({ totpLastStep: String(step) })
    .where("id", "=", user.id)
    .where((eb) => eb.or([eb("totpLastStep", "is", null), eb("totpLastStep", "<", sql<string>`${step}::bigint`)]))
    .returning("id")
    .executeTakeFirst();
  return taken !== undefined;
}

/** Marks the matching unused code used; the `usedAt is null` guard makes a code good for one sign-in only. */
async function spendRecoveryCode(trx: SqlTransaction, userId: string, typed: string): Promise<boolean> {
  const unused = await trx
    .selectFrom("RecoveryCode")
    .select(["id", "codeHash"])
    .where("userId", "=", userId)
    .where("usedAt", "is", null)
    .execute();
  const match = matchRecoveryCode(typed, unused);
  if (!match) return false;
  const spent = await trx
    .updateTable("RecoveryCode")
    .set({ usedAt: new Date() })
    .where("id", "=", match.id)
    .where("usedAt", "is", null)
    .returning("id")
    .executeTakeFirst();
  return spent !== undefined;
}

async function replaceRecoveryCodes(trx: SqlTransaction, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await trx.deleteFrom("RecoveryCode").where("userId", "=", userId).execute();
  await trx
    .insertInto("RecoveryCode")
    .values(codes.map((code) => ({ userId, codeHash: hashRecoveryCode(code) })))
    .execute();
  return codes;
}
