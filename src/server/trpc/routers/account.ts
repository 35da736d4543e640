import { ZGetAccountOutput } from "../../schemas/account";
import { ZRotateSecretOutput } from "../../schemas/webhook-deliveries";
import { rotateWebhookSecret } from "../../events/webhook-secrets";
import { getAccount } from "../../services/accounts/get-account";
import { apiProcedure, router } from "../init";

export const accountRouter = router({
  get: apiProcedure.output(ZGetAccountOutput).query(({ ctx }) => getAccount({ accountId: ctx.auth.account.id })),
  rotateWebhookSecret: apiProcedure.output(ZRotateSecretOutput).mutation(({ ctx }) => rotateWebhookSecret({ accountId: ctx.auth.account.id })),
});
