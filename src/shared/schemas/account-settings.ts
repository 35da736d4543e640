import { z } from "zod";
import { ZEmail, ZPassword } from "./auth";
import { ZTimestamp } from "./common";

/** A one-time link's token, as mailed (256 bits, base64url). */
const ZMailToken = z
  .string()
  .trim()
  .min(20, { message: "is not a valid link" })
  .max(200, { message: "is not a valid link" })
  .describe("The token from the mailed link");

export const ZAccountSettingsOutput = z.object({
  email: z.string(),
  emailVerified: z.boolean().describe("The owner opened the verification link sent to this address"),
  emailVerifiedAt: ZTimestamp.nullable(),
  pendingEmail: z
    .string()
    .nullable()
    .describe("A requested new address waiting for its confirmation link to be opened"),
});

export const ZResendVerificationOutput = z.object({ sent: z.boolean(), alreadyVerified: z.boolean() });

export const ZTokenInput = z.object({ token: ZMailToken });

export const ZVerifyEmailOutput = z.object({ verified: z.literal(true), email: z.string() });

export const ZRequestPasswordResetInput = z.object({ email: ZEmail });
export const ZRequestPasswordResetOutput = z.object({
  requested: z.literal(true).describe("Always true: the answer is the same whether or not the address has an account"),
});

export const ZResetPasswordInput = z.object({ token: ZMailToken, password: ZPassword });
export const ZResetPasswordOutput = z.object({ reset: z.literal(true) });

export const ZChangePasswordInput = z.object({
  currentPassword: z.string().min(1, { message: "is required" }).max(256),
  newPassword: ZPassword,
});
export const ZChangePasswordOutput = z.object({
  changed: z.literal(true).describe("Every other session and login token has ended"),
});

export const ZRequestEmailChangeInput = z.object({
  newEmail: ZEmail,
  currentPassword: z.string().min(1, { message: "is required" }).max(256),
});
export const ZRequestEmailChangeOutput = z.object({
  pendingEmail: z.string().describe("The address the confirmation link went to"),
});

export const ZConfirmEmailChangeOutput = z.object({
  email: z.string().describe("The account's address now; every session has ended"),
});

export const ZDeleteAccountInput = z.object({
  confirmEmail: z.string().trim().toLowerCase().max(254).describe("The account's email address, typed to confirm"),
  password: z.string().min(1, { message: "is required" }).max(256),
});
export const ZDeleteAccountOutput = z.object({ deleted: z.literal(true) });
