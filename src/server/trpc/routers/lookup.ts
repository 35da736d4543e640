import { ZLookupInput, ZLookupOutput } from "../../../shared/schemas/lookup";
import { lookup as find } from "../../services/lookup/lookup";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import { exampleDelivery } from "./example-values";

// The dashboard's search box: whatever an id or number names, in one round trip.
export const lookup = {
  find: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/lookup",
    needs: "read",
    summary: "Find what a call SID, event id, delivery id or phone number names in your account",
    input: ZLookupInput,
    output: ZLookupOutput,
    examples: {
      response: { match: { kind: "delivery", id: "cmwra4z2c00052c7dq7ds1m2m", eventId: exampleDelivery.eventId } },
    },
  }).query(({ ctx, input }) => find({ accountId: ctx.auth.account.id, q: input.q })),
};
