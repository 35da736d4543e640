import {
  ZLoginInput,
  ZLoginOutput,
  ZLogoutOutput,
  ZRegisterInput,
  ZRegisterOutput,
} from "../../../shared/schemas/auth";
import { registerAccount } from "../../services/accounts/register-account";
import { logIn } from "../../services/accounts/log-in";
import { endAllSessions } from "../../services/accounts/end-all-sessions";
import { z } from "zod";
import { signedInUser } from "../../auth/authenticate";
import { ZId } from "../../../shared/schemas/common";
import { ZLoginOutput as ZSwitchOutput, ZWhoAmIOutput } from "../../../shared/schemas/auth";
import { switchAccount, whoAmI } from "../../services/accounts/session-accounts";
import { restProcedure } from "../rest-procedure";
import { apiProcedure, credentialProcedure } from "../init";
import { exampleAccount, exampleApiKey, exampleEngineVoiceUrl, exampleTime } from "./example-values";

const exampleJwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjbXdyYTJ1d2IwMDAyMmM3ZGVuZDc5dXh3In0.c2lnbmF0dXJl";

export const auth = {
  register: restProcedure(credentialProcedure, {
    method: "POST",
    path: "/api/auth/register",
    needs: "none",
    status: 201,
    summary: "Create an account",
    errors: [409],
    input: ZRegisterInput,
    output: ZRegisterOutput,
    examples: {
      request: { email: "you@example.com", password: "correct horse", companyName: "Acme" },
      response: {
        account: exampleAccount,
        apiKey: exampleApiKey,
        token: exampleJwt,
        checkoutUrl: "http://localhost:3000/billing/checkout/eyJhbGciOi…",
        engineVoiceUrl: exampleEngineVoiceUrl,
      },
    },
  }).mutation(({ input }) => registerAccount(input)),
  login: restProcedure(credentialProcedure, {
    method: "POST",
    path: "/api/auth/login",
    needs: "none",
    summary: "Exchange email and password for a JWT",
    errors: [401],
    input: ZLoginInput,
    output: ZLoginOutput,
    examples: {
      request: { email: "you@example.com", password: "correct horse" },
      response: { token: exampleJwt, expiresAt: exampleTime, accountId: exampleAccount.id },
    },
  }).mutation(({ input }) => logIn(input)),
  /** Sign-out everywhere: the dashboard's log-out button and POST /api/auth/logout. */
  logout: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/auth/logout",
    needs: "self",
    summary: "Sign out everywhere: every dashboard session and login token of the user ends (API keys keep working)",
    output: ZLogoutOutput,
    examples: { response: { loggedOut: true } },
  }).mutation(({ ctx }) => endAllSessions({ userId: signedInUser(ctx.auth).id })),
  /** The dashboard's header and account switcher: who is signed in, their role here, and their accounts. */
  me: apiProcedure
    .meta({ needs: "self" })
    .output(ZWhoAmIOutput)
    .query(({ ctx }) => whoAmI(ctx.auth)),
  /** A login token for another of the person's accounts; the dashboard's switch route swaps the session to it. */
  switchAccount: apiProcedure
    .meta({ needs: "self" })
    .input(z.object({ accountId: ZId }))
    .output(ZSwitchOutput)
    .mutation(({ ctx, input }) => switchAccount({ userId: signedInUser(ctx.auth).id, accountId: input.accountId })),
};
