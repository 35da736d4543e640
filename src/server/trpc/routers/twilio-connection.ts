import { ZConnectTwilioInput, ZDisconnectTwilioOutput, ZListTwilioNumbersOutput, ZTwilioConnectionOutput } from "../../schemas/twilio-connection";
import { connectTwilio } from "../../services/twilio-connection/connect-twilio";
import { disconnectTwilio } from "../../services/twilio-connection/disconnect-twilio";
import { getTwilioConnection } from "../../services/twilio-connection/get-twilio-connection";
import { listConnectedTwilioNumbers } from "../../services/twilio-connection/list-twilio-numbers";
import { apiProcedure, router } from "../init";

export const twilioConnectionRouter = router({
  connect: apiProcedure
    .input(ZConnectTwilioInput)
    .output(ZTwilioConnectionOutput)
    .mutation(({ ctx, input }) => connectTwilio({ accountId: ctx.auth.account.id, input })),
  get: apiProcedure.output(ZTwilioConnectionOutput).query(({ ctx }) => getTwilioConnection({ accountId: ctx.auth.account.id })),
  disconnect: apiProcedure.output(ZDisconnectTwilioOutput).mutation(({ ctx }) => disconnectTwilio({ accountId: ctx.auth.account.id })),
  numbers: apiProcedure.output(ZListTwilioNumbersOutput).query(({ ctx }) => listConnectedTwilioNumbers({ accountId: ctx.auth.account.id })),
});
