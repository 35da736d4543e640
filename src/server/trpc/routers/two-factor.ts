import {
  ZBeginTwoFactorOutput,
  ZConfirmTwoFactorInput,
  ZDisableTwoFactorInput,
  ZDisableTwoFactorOutput,
  ZRecoveryCodesOutput,
  ZRegenerateRecoveryCodesInput,
  ZTwoFactorPolicyInput,
  ZTwoFactorPolicyOutput,
  ZTwoFactorStatusOutput,
} from "../../../shared/schemas/two-factor";
import { signedInUser } from "../../auth/authenticate";
import { originOf } from "../../services/audit/record-audit";
import {
  beginTwoFactor,
  confirmTwoFactor,
  disableTwoFactor,
  regenerateRecoveryCodes,
  setTwoFactorPolicy,
  twoFactorStatus,
} from "../../services/two-factor/two-factor";
import { apiProcedure } from "../init";
import { restProcedure } from "../rest-procedure";

const exampleRecoveryCodes = [
  "7k2m9q-x4p8td",
  "p3w8zc-m1h6ra",
  "e9t4vn-5qk2yb",
  "h6c1jx-w8n3df",
  "2rd7mp-z4k9ts",
  "b5y8qe-j3x1wh",
  "n4g6tz-c9p2mk",
  "x1f3rv-7e5bjq",
  "m8a2dw-k6t4zn",
  "q7h5cs-3y9gpe",
];

/**
 * docs/decisions.md §18 and §22: a person's own two-factor sign-in. Every route but the policy needs only
 * `self`, so a member of an account that requires two-factor can still turn it on (trpc/init.ts `authorize`);
 * each is for a signed-in person, never an API key (`signedInUser`).
 */
export const twoFactor = {
  /** The dashboard's Security page: whether it is on, and the account's requirement. */
  status: apiProcedure
    .meta({ needs: "self" })
    .output(ZTwoFactorStatusOutput)
    .query(({ ctx }) =>
      twoFactorStatus({ userId: signedInUser(ctx.auth).id, accountId: ctx.auth.account.id, role: ctx.auth.role }),
    ),
  begin: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/auth/two-factor",
    needs: "self",
    summary:
      "Start turning on two-factor sign-in: a new TOTP secret for an authenticator app (nothing changes until it is confirmed)",
    output: ZBeginTwoFactorOutput,
    examples: {
      response: {
        secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
        otpauthUrl:
          "otpauth://totp/Routekit:you%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Routekit&algorithm=SHA1&digits=6&period=30",
      },
    },
  }).mutation(({ ctx }) => beginTwoFactor({ userId: signedInUser(ctx.auth).id })),
  confirm: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/auth/two-factor/confirm",
    needs: "self",
    summary: "Turn on two-factor sign-in with a code from the app; answers the ten recovery codes, shown only once",
    input: ZConfirmTwoFactorInput,
    output: ZRecoveryCodesOutput,
    examples: { request: { code: "492039" }, response: { recoveryCodes: exampleRecoveryCodes } },
  }).mutation(({ ctx, input }) =>
    confirmTwoFactor({
      userId: signedInUser(ctx.auth).id,
      accountId: ctx.auth.account.id,
      origin: originOf(ctx.auth, ctx.ip),
      code: input.code,
    }),
  ),
  disable: restProcedure(apiProcedure, {
    method: "DELETE",
    path: "/api/auth/two-factor",
    needs: "self",
    summary: "Turn off two-factor sign-in, with a code from the app or a recovery code",
    input: ZDisableTwoFactorInput,
    output: ZDisableTwoFactorOutput,
    examples: { request: { code: "492039" }, response: { twoFactorEnabled: false } },
  }).mutation(({ ctx, input }) =>
    disableTwoFactor({
      userId: signedInUser(ctx.auth).id,
      accountId: ctx.auth.account.id,
      origin: originOf(ctx.auth, ctx.ip),
      code: input.code,
    }),
  ),
  regenerateRecoveryCodes: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/auth/two-factor/recovery-codes",
    needs: "self",
    summary:
      "Ten new recovery codes, with a code from the app or a recovery code; the old ones stop working. Shown only once",
    input: ZRegenerateRecoveryCodesInput,
    output: ZRecoveryCodesOutput,
    examples: { request: { code: "492039" }, response: { recoveryCodes: exampleRecoveryCodes } },
  }).mutation(({ ctx, input }) =>
    regenerateRecoveryCodes({
      userId: signedInUser(ctx.auth).id,
      accountId: ctx.auth.account.id,
      origin: originOf(ctx.auth, ctx.ip),
      code: input.code,
    }),
  ),
  setPolicy: restProcedure(apiProcedure, {
    method: "PUT",
    path: "/api/account/two-factor-policy",
    needs: "owner",
    summary:
      "Require two-factor sign-in of every member, or stop requiring it (an owner; the owner's own two-factor must be on first)",
    input: ZTwoFactorPolicyInput,
    output: ZTwoFactorPolicyOutput,
    examples: { request: { required: true }, response: { required: true } },
  }).mutation(({ ctx, input }) =>
    setTwoFactorPolicy({
      userId: signedInUser(ctx.auth).id,
      accountId: ctx.auth.account.id,
      origin: originOf(ctx.auth, ctx.ip),
      required: input.required,
    }),
  ),
};
