import {
  ZConnectTwilioInput,
  ZDisconnectTwilioOutput,
  ZListTwilioNumbersOutput,
  ZTwilioConnectionOutput,
} from "../../../shared/schemas/twilio-connection";
import { connectTwilio } from "../../services/twilio-connection/connect-twilio";
import { disconnectTwilio } from "../../services/twilio-connection/disconnect-twilio";
import { getTwilioConnection } from "../../services/twilio-connection/get-twilio-connection";
import { listConnectedTwilioNumbers } from "../../services/twilio-connection/list-twilio-numbers";
import { restProcedure } from "../../rest/rest-procedure";
import { apiProcedure } from "../init";

export const twilioConnection = {
  connect: restProcedure(apiProcedure, {
    method: "PUT",
    path: "/api/twilio-connection",
    needs: "write",
    summary: "Connect your Twilio account (credentials checked at Twilio; the auth token is stored encrypted)",
    errors: [502],
    input: ZConnectTwilioInput,
    output: ZTwilioConnectionOutput,
  }).mutation(({ ctx, input }) => connectTwilio({ accountId: ctx.auth.account.id, input })),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/twilio-connection",
    needs: "read",
    summary: "The connected Twilio account",
    errors: [404],
    output: ZTwilioConnectionOutput,
  }).query(({ ctx }) => getTwilioConnection({ accountId: ctx.auth.account.id })),
  disconnect: restProcedure(apiProcedure, {
    method: "DELETE",
    path: "/api/twilio-connection",
    needs: "write",
    summary: "Disconnect Twilio (numbers stay registered, no longer verified)",
    output: ZDisconnectTwilioOutput,
  }).mutation(({ ctx }) => disconnectTwilio({ accountId: ctx.auth.account.id })),
  numbers: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/twilio-connection/numbers",
    needs: "read",
    summary: "Every incoming number of the connected Twilio account, registered and configured or not",
    errors: [404, 502],
    output: ZListTwilioNumbersOutput,
  }).query(({ ctx }) => listConnectedTwilioNumbers({ accountId: ctx.auth.account.id })),
};
