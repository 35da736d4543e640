import { z } from "zod";
import {
  ALERT_TYPES,
  type AlertType,
  ZAlertSettingsOutput,
  ZListAlertsInput,
  ZListAlertsOutput,
  ZPutAlertSettingsInput,
} from "../../../shared/schemas/alerts";
import { getAlertSettings, putAlertSettings } from "../../services/alerts/alert-settings";
import { listAlerts, recentAlertCount } from "../../services/alerts/list-alerts";
import { originOf } from "../../services/audit/record-audit";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import { exampleAlert } from "./example-values";

// Every type but the exhausted deliveries, which the example has switched off.
const exampleEmailSwitches = Object.fromEntries(
  ALERT_TYPES.map((t) => [t, t !== "alert.delivery_exhausted"]),
) as Record<AlertType, boolean>;

export const alerts = {
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/alerts",
    needs: "read",
    summary:
      "The account's alerts of the last 30 days (docs/decisions.md §16), newest first, each with what it is about and what to do",
    input: ZListAlertsInput,
    output: ZListAlertsOutput,
    examples: { response: { alerts: [exampleAlert], nextCursor: null } },
  }).query(({ ctx, input }) => listAlerts({ accountId: ctx.auth.account.id, ...input })),
  // The dashboard's nav badge only (no REST route): alerts of the last 24 hours.
  recentCount: apiProcedure
    .meta({ needs: "read" })
    .output(z.object({ count: z.number().int() }))
    .query(({ ctx }) => recentAlertCount({ accountId: ctx.auth.account.id })),
  settings: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/account/alert-settings",
    needs: "read",
    summary: "Which alert types are also emailed to the account's address (all by default)",
    output: ZAlertSettingsOutput,
    examples: { response: { email: exampleEmailSwitches } },
  }).query(({ ctx }) => getAlertSettings(ctx.auth.account.id)),
  putSettings: restProcedure(apiProcedure, {
    method: "PUT",
    path: "/api/account/alert-settings",
    needs: "admin",
    summary: "Switch alert emails per type (an omitted type is switched on); webhooks are not affected",
    input: ZPutAlertSettingsInput,
    output: ZAlertSettingsOutput,
    examples: {
      request: { email: { "alert.delivery_exhausted": false } },
      response: { email: exampleEmailSwitches },
    },
  }).mutation(({ ctx, input }) => putAlertSettings(ctx.auth.account.id, input, originOf(ctx.auth, ctx.ip))),
};
