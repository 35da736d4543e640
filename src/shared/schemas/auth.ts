import { z } from "zod";
import { ZMemberRole } from "./enums";
import { ZAccountStatus, ZId, ZTimestamp } from "./common";
import { ZRecoveryCode, ZTotpCode } from "./two-factor";
import {
  API_KEY_CHARS,
  boundedString,
  COMPANY_NAME_MAX_CHARS,
  EMAIL_MAX_CHARS,
  outputUrl,
  STRIPE_URL_MAX_CHARS,
  TOKEN_MAX_CHARS,
} from "./bounds";

export const ZEmail = z
  .string()
  .trim()
  .toLowerCase()
  .max(EMAIL_MAX_CHARS)
  .email({ message: "must be a valid email address" })
  .describe("Email address; compared case-insensitively");
export const ZPassword = z
  .string({ message: "is required" })
  .min(8, { message: "must be at least 8 characters" })
  .max(256, { message: "must be at most 256 characters" })
  .describe("8 to 256 characters; stored only as an argon2id hash");

export const ZRegisterInput = z.object({
  email: ZEmail,
  password: ZPassword,
  companyName: z.string().trim().min(1).max(COMPANY_NAME_MAX_CHARS).nullish().describe("Optional, 1–200 characters"),
});
export type TRegisterInput = z.infer<typeof ZRegisterInput>;

export const ZAccountSummary = z.object({
  id: ZId,
  email: boundedString(EMAIL_MAX_CHARS).describe("The account's email address, lower-cased"),
  companyName: boundedString(COMPANY_NAME_MAX_CHARS).nullable().describe("As given; null when none was"),
  status: ZAccountStatus,
});

export const ZRegisterOutput = z.object({
  account: ZAccountSummary.describe("The new account, INACTIVE until checkout is completed"),
  apiKey: boundedString(API_KEY_CHARS).describe("The account's first API key, labelled Default. Shown only once."),
  token: boundedString(TOKEN_MAX_CHARS).describe("Login JWT, valid 24 hours; accepted as a Bearer token"),
  checkoutUrl: boundedString(STRIPE_URL_MAX_CHARS).describe("Open to pay; the account becomes ACTIVE"),
  engineVoiceUrl: outputUrl().describe("Set as the voice URL and status callback URL of your Twilio numbers"),
});

export const ZLoginInput = z.object({
  email: ZEmail,
  password: z.string().min(1).max(256).describe("The user's password"),
  accountId: ZId.optional().describe(
    "The account to sign in to, for a user who belongs to several; default: the one they used last",
  ),
  code: ZTotpCode.optional().describe(
    "For a user with two-factor sign-in: the 6-digit code from their authenticator app (each code signs in once)",
  ),
  recoveryCode: ZRecoveryCode.optional().describe(
    "For a user with two-factor sign-in, instead of `code`: one of their recovery codes (each works once)",
  ),
});
export type TLoginInput = z.infer<typeof ZLoginInput>;

export const ZLoginOutput = z.object({
  token: boundedString(TOKEN_MAX_CHARS).describe(
    "JWT (HS256), accepted as `Authorization: Bearer <token>`; names the user and the account",
  ),
  expiresAt: ZTimestamp.describe("When the token stops working (24 hours from now)"),
  accountId: ZId.describe("The account the token is signed in to"),
});

export const ZLogoutOutput = z.object({
  loggedOut: z
    .literal(true)
    .describe("Every dashboard session and login token of the signed-in user has ended; API keys keep working"),
});

const ZRole = ZMemberRole;
export const ZWhoAmIOutput = z.object({
  user: z.object({ id: ZId, email: z.string(), twoFactorEnabled: z.boolean() }).nullable(),
  role: ZRole,
  account: z.object({
    id: ZId,
    email: z.string(),
    companyName: z.string().nullable(),
    requireTwoFactor: z.boolean(),
  }),
  accounts: z.array(z.object({ id: ZId, email: z.string(), companyName: z.string().nullable(), role: ZRole })),
});
