import { z } from "zod";
import { ZTimestamp } from "./common";
import { boundedInt, boundedString, OTPAUTH_URL_MAX_CHARS, outputCode, TOTP_SECRET_CHARS } from "./bounds";

/** The six digits an authenticator app shows (RFC 6238). */
export const ZTotpCode = z
  .string({ message: "is required" })
  .trim()
  .max(6)
  .regex(/^\d{6}$/, { message: "must be the 6-digit code from your authenticator app" })
  .describe("The 6-digit code your authenticator app shows now");

/** One of the ten recovery codes, as written down (case, spaces and dashes do not matter). */
export const ZRecoveryCode = z
  .string({ message: "is required" })
  .trim()
  .min(10, { message: "is not a recovery code" })
  .max(40, { message: "is not a recovery code" })
  .describe("One of your ten recovery codes, e.g. `7k2m9q-x4p8td`; each works once");

/** Where either is taken (turning two-factor off, new recovery codes): the app's code or a recovery code. */
const ZSecondFactorCode = z
  .string({ message: "is required" })
  .trim()
  .min(6, { message: "must be the 6-digit code from your authenticator app or a recovery code" })
  .max(40, { message: "must be the 6-digit code from your authenticator app or a recovery code" })
  .describe("The 6-digit code from your authenticator app, or one of your recovery codes (which is then used up)");

export const ZBeginTwoFactorOutput = z.object({
  secret: boundedString(TOTP_SECRET_CHARS).describe("The TOTP secret (base32), to type into an authenticator app"),
  otpauthUrl: boundedString(OTPAUTH_URL_MAX_CHARS).describe(
    "The same secret as an `otpauth://totp/…` URL, for a QR code; two-factor is on once confirmed",
  ),
});

export const ZConfirmTwoFactorInput = z.object({ code: ZTotpCode });
export const ZRecoveryCodesOutput = z.object({
  recoveryCodes: z
    .array(outputCode())
    .length(10)
    .describe("Ten single-use recovery codes. Shown only this once: only their hashes are stored"),
});

export const ZDisableTwoFactorInput = z.object({ code: ZSecondFactorCode });
export const ZDisableTwoFactorOutput = z.object({
  twoFactorEnabled: z.literal(false).describe("Two-factor sign-in is off: the password alone signs in again"),
});

export const ZRegenerateRecoveryCodesInput = z.object({ code: ZSecondFactorCode });

export const ZTwoFactorStatusOutput = z.object({
  enabled: z.boolean().describe("Signing in asks for a code"),
  enabledAt: ZTimestamp.nullable(),
  recoveryCodesLeft: boundedInt(0, 10).describe("Unused recovery codes (0 to 10)"),
  accountRequires: z.boolean().describe("The signed-in account requires two-factor of every member"),
  isOwner: z.boolean().describe("The signed-in person may change the account's requirement"),
});

export const ZTwoFactorPolicyInput = z.object({
  required: z.boolean({ message: "must be true or false" }).describe("Require two-factor sign-in of every member"),
});
export const ZTwoFactorPolicyOutput = z.object({
  required: z.boolean().describe("Whether the account requires two-factor sign-in of every member"),
});
