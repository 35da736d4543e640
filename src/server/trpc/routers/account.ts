import { ZGetAccountOutput, ZRotateEngineUrlOutput } from "../../../shared/schemas/account";
import { ZRotateSecretInput, ZRotateSecretOutput } from "../../../shared/schemas/webhook-deliveries";
import { rotateWebhookSecret } from "../../services/accounts/rotate-webhook-secret";
import { getAccount } from "../../services/accounts/get-account";
import { rotateEngineUrl } from "../../services/accounts/rotate-engine-url";
import type { z } from "zod";
import { type TLimits, ZLimitsOutput, ZPutLimitsInput } from "../../../shared/schemas/limits";
import { getAccountLimits, putAccountLimits } from "../../services/limits/account-limits";
import { seesSecrets } from "../../../shared/roles";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import { exampleAccount, exampleEngineVoiceUrl, exampleTime } from "./example-values";

const exampleLimits: TLimits = {
  monthlyBudget: 250,
  alertThresholds: [50, 80, 100],
  hardCap: true,
  maxConcurrentCalls: 20,
};
const exampleLimitsOutput: z.output<typeof ZLimitsOutput> = {
  limits: exampleLimits,
  current: { month: "2026-11", spent: 212.46, liveCalls: 3, thresholdsReached: [50, 80] },
};

export const account = {
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/account",
    needs: "read",
    summary: "The calling account",
    readsOwnAccount: true,
    output: ZGetAccountOutput,
    examples: {
      response: {
        account: {
          ...exampleAccount,
          status: "ACTIVE",
          createdAt: exampleTime,
          webhookSecret: "whsec_UKZ9pfX8PeDawR+GnxjvcgDmFMvjcM+ReSdrooxns2I=",
          engineVoiceUrl: exampleEngineVoiceUrl,
          _count: { phoneNumbers: 1, apiKeys: 2 },
        },
      },
    },
  }).query(({ ctx }) =>
    getAccount({ accountId: ctx.auth.account.id, read: ctx.auth.accountRead, showSecret: seesSecrets(ctx.auth.role) }),
  ),
  rotateWebhookSecret: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/account/webhook-secret",
    needs: "admin",
    summary: "Rotate the webhook signing secret (the old one keeps signing for 24 hours)",
    input: ZRotateSecretInput,
    output: ZRotateSecretOutput,
    examples: {
      response: {
        webhookSecret: "whsec_Q2hhbmdlZCBzZWNyZXQgZm9yIGV4YW1wbGUgb25seQ==",
        previousSecretExpiresAt: "2026-11-23T10:00:00.000Z",
      },
    },
  }).mutation(({ ctx, input }) =>
    rotateWebhookSecret({ accountId: ctx.auth.account.id, expirePrevious: input?.expirePrevious }),
  ),
  rotateEngineUrl: restProcedure(apiProcedure, {
    method: "POST",
    path: "/api/account/engine-url",
    needs: "admin",
    summary:
      "Issue a new engine URL (the old one keeps working for 24 hours); numbers set up through the Twilio connection are repointed",
    output: ZRotateEngineUrlOutput,
    examples: {
      response: {
        engineVoiceUrl: "http://localhost:3000/api/engine/voice/rt_Q3b9Xk2mN7pL4sV8wY1zA5cD6eF0gHjK",
        previousExpiresAt: "2026-11-23T10:00:00.000Z",
        twilioNumbers: { repointed: ["+14155550123"], failed: [] },
      },
    },
  }).mutation(({ ctx }) => rotateEngineUrl({ accountId: ctx.auth.account.id })),
  limits: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/account/limits",
    needs: "read",
    summary: "Spend and volume guardrails, and where this month stands against them",
    output: ZLimitsOutput,
    examples: { response: exampleLimitsOutput },
  }).query(({ ctx }) => getAccountLimits({ accountId: ctx.auth.account.id })),
  // Money decisions: an owner's or admin's (docs/decisions.md §18: a developer reads limits only).
  // Any standing may set them: a suspended account can still bound what it will owe.
  putLimits: restProcedure(apiProcedure, {
    method: "PUT",
    path: "/api/account/limits",
    needs: "admin",
    summary:
      "Replace the guardrails: monthly budget, alert thresholds, hard cap, concurrent calls (omitted fields take their defaults)",
    input: ZPutLimitsInput,
    output: ZLimitsOutput,
    examples: { request: exampleLimits, response: exampleLimitsOutput },
  }).mutation(({ ctx, input }) => putAccountLimits({ accountId: ctx.auth.account.id, input })),
};
