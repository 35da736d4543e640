import type { z } from "zod";
import {
  type ZTwilioConnection,
  ZConnectTwilioInput,
  ZDisconnectTwilioOutput,
  ZListTwilioNumbersOutput,
  ZTwilioConnectionOutput,
} from "../../../shared/schemas/twilio-connection";
import { connectTwilio } from "../../services/twilio-connection/connect-twilio";
import { disconnectTwilio } from "../../services/twilio-connection/disconnect-twilio";
import { getTwilioConnection } from "../../services/twilio-connection/get-twilio-connection";
import { listConnectedTwilioNumbers } from "../../services/twilio-connection/list-twilio-numbers";
import { originOf } from "../../services/audit/record-audit";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import { exampleEngineVoiceUrl, exampleTime } from "./example-values";

const exampleConnection: z.output<typeof ZTwilioConnection> = {
  accountSid: "AC0123456789abcdef0123456789abcdef",
  friendlyName: "Acme Voice",
  connectedAt: exampleTime,
};

export const twilioConnection = {
  connect: restProcedure(apiProcedure, {
    method: "PUT",
    path: "/api/twilio-connection",
    needs: "admin",
    summary: "Connect your Twilio account (credentials checked at Twilio; the auth token is stored encrypted)",
    errors: [502],
    input: ZConnectTwilioInput,
    output: ZTwilioConnectionOutput,
    examples: {
      request: { accountSid: exampleConnection.accountSid, authToken: "your_auth_token" },
      response: { twilioConnection: exampleConnection },
    },
  }).mutation(({ ctx, input }) =>
    connectTwilio({ accountId: ctx.auth.account.id, input, origin: originOf(ctx.auth, ctx.ip) }),
  ),
  get: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/twilio-connection",
    needs: "read",
    summary: "The connected Twilio account",
    errors: [404],
    output: ZTwilioConnectionOutput,
    examples: { response: { twilioConnection: exampleConnection } },
  }).query(({ ctx }) => getTwilioConnection({ accountId: ctx.auth.account.id })),
  disconnect: restProcedure(apiProcedure, {
    method: "DELETE",
    path: "/api/twilio-connection",
    needs: "admin",
    summary: "Disconnect Twilio (numbers stay registered, no longer verified)",
    output: ZDisconnectTwilioOutput,
    examples: { response: { disconnected: true } },
  }).mutation(({ ctx }) => disconnectTwilio({ accountId: ctx.auth.account.id, origin: originOf(ctx.auth, ctx.ip) })),
  numbers: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/twilio-connection/numbers",
    needs: "read",
    summary: "Every incoming number of the connected Twilio account, registered and configured or not",
    errors: [404, 502],
    output: ZListTwilioNumbersOutput,
    examples: {
      response: {
        numbers: [
          {
            sid: "PN0123456789abcdef0123456789abcdef",
            phoneNumber: "+14155550123",
            friendlyName: "(415) 555-0123",
            voiceUrl: exampleEngineVoiceUrl,
            statusCallback: exampleEngineVoiceUrl,
            registered: true,
            configured: true,
          },
          {
            sid: "PNfedcba9876543210fedcba9876543210",
            phoneNumber: "+14155550124",
            friendlyName: "Support line",
            voiceUrl: "https://demo.twilio.com/welcome/voice/",
            statusCallback: null,
            registered: false,
            configured: false,
          },
        ],
        subaccounts: [],
      },
    },
  }).query(({ ctx }) => listConnectedTwilioNumbers({ accountId: ctx.auth.account.id })),
};
