import {
  ZAccountSettingsOutput,
  ZChangePasswordInput,
  ZChangePasswordOutput,
  ZConfirmEmailChangeOutput,
  ZDeleteAccountInput,
  ZDeleteAccountOutput,
  ZRequestEmailChangeInput,
  ZRequestEmailChangeOutput,
  ZRequestPasswordResetInput,
  ZRequestPasswordResetOutput,
  ZResendVerificationOutput,
  ZResetPasswordInput,
  ZResetPasswordOutput,
  ZTokenInput,
  ZVerifyEmailOutput,
} from "../../../shared/schemas/account-settings";
import { getAccountSettings } from "../../services/accounts/account-settings";
import { changePassword } from "../../services/accounts/change-password";
import { confirmEmailChange, requestEmailChange } from "../../services/accounts/change-email";
import { deleteAccount } from "../../services/accounts/delete-account";
import { resendVerificationEmail, verifyEmail } from "../../services/accounts/email-verification";
import { requestPasswordReset, resetPassword } from "../../services/accounts/password-reset";
import { signedInUser } from "../../auth/authenticate";
import { apiProcedure, publicProcedure } from "../init";

/**
 * Account settings and the mailed links. The signed-in ones take a session,
 * login token or API key like the rest of the API; the link ones take the
 * mailed token (256 random bits), which is the credential.
 */
export const settings = {
  get: apiProcedure
    .meta({ needs: "self" })
    .output(ZAccountSettingsOutput)
    .query(({ ctx }) => getAccountSettings({ userId: signedInUser(ctx.auth).id, accountId: ctx.auth.account.id })),
  resendVerification: apiProcedure
    .meta({ needs: "self" })
    .output(ZResendVerificationOutput)
    .mutation(({ ctx }) =>
      resendVerificationEmail({ userId: signedInUser(ctx.auth).id, accountId: ctx.auth.account.id, ip: ctx.ip }),
    ),
  verifyEmail: publicProcedure
    .meta({ needs: "none" })
    .input(ZTokenInput)
    .output(ZVerifyEmailOutput)
    .mutation(({ input }) => verifyEmail(input)),
  requestPasswordReset: publicProcedure
    .meta({ needs: "none" })
    .input(ZRequestPasswordResetInput)
    .output(ZRequestPasswordResetOutput)
    .mutation(({ ctx, input }) => requestPasswordReset({ email: input.email, ip: ctx.ip })),
  resetPassword: publicProcedure
    .meta({ needs: "none" })
    .input(ZResetPasswordInput)
    .output(ZResetPasswordOutput)
    .mutation(({ input }) => resetPassword(input)),
  changePassword: apiProcedure
    .meta({ needs: "self" })
    .input(ZChangePasswordInput)
    .output(ZChangePasswordOutput)
    .mutation(({ ctx, input }) => changePassword({ userId: signedInUser(ctx.auth).id, ip: ctx.ip, ...input })),
  requestEmailChange: apiProcedure
    .meta({ needs: "self" })
    .input(ZRequestEmailChangeInput)
    .output(ZRequestEmailChangeOutput)
    .mutation(({ ctx, input }) =>
      requestEmailChange({ userId: signedInUser(ctx.auth).id, accountId: ctx.auth.account.id, ip: ctx.ip, ...input }),
    ),
  confirmEmailChange: publicProcedure
    .meta({ needs: "none" })
    .input(ZTokenInput)
    .output(ZConfirmEmailChangeOutput)
    .mutation(({ input }) => confirmEmailChange(input)),
  delete: apiProcedure
    .meta({ needs: "owner" })
    .input(ZDeleteAccountInput)
    .output(ZDeleteAccountOutput)
    .mutation(({ ctx, input }) =>
      deleteAccount({ accountId: ctx.auth.account.id, userId: signedInUser(ctx.auth).id, ip: ctx.ip, ...input }),
    ),
};
