import { ZLoginInput, ZLoginOutput, ZRegisterInput, ZRegisterOutput } from "../../schemas/auth";
import { POLICIES, enforceRateLimit } from "../../rate-limit/rate-limiter";
import { registerAccount } from "../../services/accounts/register-account";
import { logIn } from "../../services/accounts/log-in";
import { credentialProcedure, router } from "../init";

export const authRouter = router({
  register: credentialProcedure
    .input(ZRegisterInput)
    .output(ZRegisterOutput)
    .mutation(async ({ input }) => {
      await enforceRateLimit([`auth.register:email:${input.email}`], POLICIES.auth);
      return registerAccount(input);
    }),
  login: credentialProcedure
    .input(ZLoginInput)
    .output(ZLoginOutput)
    .mutation(async ({ input }) => {
      await enforceRateLimit([`auth.login:email:${input.email}`], POLICIES.auth);
      return logIn(input);
    }),
});
