import { ZGetAccountOutput } from "../../schemas/account";
import { getAccount } from "../../services/accounts/get-account";
import { apiProcedure, router } from "../init";

export const accountRouter = router({
  get: apiProcedure.output(ZGetAccountOutput).query(({ ctx }) => getAccount({ accountId: ctx.auth.account.id })),
});
