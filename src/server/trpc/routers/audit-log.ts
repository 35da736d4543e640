import { type TAuditLogEntry, ZListAuditLogInput, ZListAuditLogOutput } from "../../../shared/schemas/audit-log";
import { listAuditLog } from "../../services/audit/list-audit-log";
import { restProcedure } from "../rest-procedure";
import { apiProcedure } from "../init";
import { exampleNumber, exampleTime } from "./example-values";

const exampleEntry: TAuditLogEntry = {
  id: "cmwra4c2p00052c7d9kq3r7tz",
  action: "phone_number.updated",
  actor: { type: "member", userId: "cmwra2uwb00012c7d4n8s1x0v", email: "you@example.com", keyPrefix: null },
  target: { type: "phone_number", id: exampleNumber.id },
  details: { changed: ["onCallStartUrl"] },
  ip: "203.0.113.7",
  createdAt: exampleTime,
};

export const auditLog = {
  // `admin`: the log names members by address and shows client addresses, which a developer or viewer
  // does not otherwise see (docs/decisions.md §18).
  list: restProcedure(apiProcedure, {
    method: "GET",
    path: "/api/audit-log",
    needs: "admin",
    summary:
      "Every change to the account of the last 13 months (docs/decisions.md §18), newest first: who, what, the target, the client address and the time",
    input: ZListAuditLogInput,
    output: ZListAuditLogOutput,
    examples: {
      response: {
        entries: [
          exampleEntry,
          {
            id: "cmwra4b9x00042c7d1w2e3r4t",
            action: "api_key.created",
            actor: { type: "api_key", userId: null, email: null, keyPrefix: "rtk_3Xq9zH2k" },
            target: { type: "api_key", id: "cmwra4b9a00032c7d7y6u5i4o" },
            details: { label: "CI", scope: "read-only", keyPrefix: "rtk_Lm8pQ2rS" },
            ip: "198.51.100.20",
            createdAt: "2026-11-22T09:58:00.000Z",
          },
        ],
        nextCursor: null,
      },
    },
  }).query(({ ctx, input }) => listAuditLog({ accountId: ctx.auth.account.id, ...input })),
};
