import { ZLoginInput, ZLoginOutput, ZLogoutOutput, ZRegisterInput, ZRegisterOutput } from "../../schemas/auth";
import { registerAccount } from "../../services/accounts/register-account";
import { logIn } from "../../services/accounts/log-in";
import { endAllSessions } from "../../services/accounts/end-all-sessions";
import { apiProcedure, credentialProcedure, router } from "../init";

export const authRouter = router({
  register: credentialProcedure.input(ZRegisterInput).output(ZRegisterOutput).mutation(({ input }) => registerAccount(input)),
  login: credentialProcedure.input(ZLoginInput).output(ZLoginOutput).mutation(({ input }) => logIn(input)),
  /** Sign-out everywhere: the dashboard's log-out button and POST /api/auth/logout. */
  logout: apiProcedure.output(ZLogoutOutput).mutation(({ ctx }) => endAllSessions({ accountId: ctx.auth.account.id })),
});
