import { z } from "zod";
import { ZMemberRole } from "./enums";
import { ZAccountStatus, ZId, ZTimestamp } from "./common";

export const ZEmail = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
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
  companyName: z.string().trim().min(1).max(200).nullish().describe("Optional, 1–200 characters"),
});
export type TRegisterInput = z.infer<typeof ZRegisterInput>;

export const ZAccountSummary = z.object({
  id: ZId,
  email: z.string().describe("The account's email address, lower-cased"),
  companyName: z.string().nullable().describe("As given; null when none was"),
  status: ZAccountStatus,
});

export const ZRegisterOutput = z.object({
  account: ZAccountSummary.describe("The new account, INACTIVE until checkout is completed"),
  apiKey: z.string().describe("The account's first API key, labelled Default. Shown only once."),
  token: z.string().describe("Login JWT, valid 24 hours; accepted as a Bearer token"),
  checkoutUrl: z.string().describe("Open to pay; the account becomes ACTIVE"),
  engineVoiceUrl: z.string().describe("Set as the voice URL and status callback URL of your Twilio numbers"),
});

export const ZLoginInput = z.object({
  email: ZEmail,
  password: z.string().min(1).max(256).describe("The user's password"),
  accountId: ZId.optional().describe(
    "The account to sign in to, for a user who belongs to several; default: the one they used last",
  ),
});
export type TLoginInput = z.infer<typeof ZLoginInput>;

export const ZLoginOutput = z.object({
  token: z
    .string()
    .describe("JWT (HS256), accepted as `Authorization: Bearer <token>`; names the user and the account"),
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
