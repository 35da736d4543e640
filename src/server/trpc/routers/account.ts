import { ZGetAccountOutput, ZRotateEngineUrlOutput } from "../../../shared/schemas/account";
import { ZRotateSecretInput, ZRotateSecretOutput } from "../../../shared/schemas/webhook-deliveries";
import { rotateWebhookSecret } from "../../services/accounts/rotate-webhook-secret";
import { getAccount } from "../../services/accounts/get-account";
import { rotateEngineUrl } from "../../services/accounts/rotate-engine-url";
import { ZLimitsOutput, ZPutLimitsInput } from "../../../shared/schemas/limits";
import { getAccountLimits, putAccountLimits } from "../../services/limits/account-limits";
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure } from "../init";

export const account = {
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/account",
    needs: "read",
    summary: "The calling account",
    output: ZGetAccountOutput,
  }).query(({ ctx }) => getAccount({ accountId: ctx.auth.account.id, read: ctx.auth.accountRead })),
  rotateWebhookSecret: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/account/webhook-secret",
    needs: "write",
    summary: "Rotate the webhook signing secret (the old one keeps signing for 24 hours)",
    input: ZRotateSecretInput,
    output: ZRotateSecretOutput,
  }).mutation(({ ctx, input }) =>
    rotateWebhookSecret({ accountId: ctx.auth.account.id, expirePrevious: input?.expirePrevious }),
  ),
  rotateEngineUrl: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/account/engine-url",
    needs: "write",
    summary:
      "Issue a new engine URL (the old one keeps working for 24 hours); numbers set up through the Twilio connection are repointed",
    output: ZRotateEngineUrlOutput,
  }).mutation(({ ctx }) => rotateEngineUrl({ accountId: ctx.auth.account.id })),
  limits: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/account/limits",
    needs: "read",
    summary: "Spend and volume guardrails, and where this month stands against them",
    output: ZLimitsOutput,
  }).query(({ ctx }) => getAccountLimits({ accountId: ctx.auth.account.id })),
  // Money decisions: an owner's or admin's (docs/decisions.md §18: a developer reads limits only).
  // Any standing may set them: a suspended account can still bound what it will owe.
  putLimits: restProcedure(apiProcedure, {
    method: "PUT",
    path: "/api/account/limits",
    needs: "billing",
    summary:
      "Replace the guardrails: monthly budget, alert thresholds, hard cap, concurrent calls (omitted fields take their defaults)",
    input: ZPutLimitsInput,
    output: ZLimitsOutput,
  }).mutation(({ ctx, input }) => putAccountLimits({ accountId: ctx.auth.account.id, input })),
};
