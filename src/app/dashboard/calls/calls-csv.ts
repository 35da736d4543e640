import type { TCall } from "@/shared/schemas/calls";

const COLUMNS = [
  "callSid",
  "direction",
  "from",
  "to",
  "phoneNumberId",
  "status",
  "startedAt",
  "endedAt",
  "durationSeconds",
  "billedMinutes",
  "totalCost",
  "answeredBy",
  "answer",
  "errorCode",
  "errorMessage",
  "endReason",
  "sipResponseCode",
  "twilioErrorCode",
] as const;

/**
 * RFC 4180 quoting. A value that a spreadsheet would run as a formula (a leading =, @, or a + or -
 * that is not a plain number such as an E.164 phone number) is defused: callers choose their From.
 */
function cell(value: string | number | null): string {
  if (value === null) return "";
  let s = String(value);
  if (typeof value === "string" && (/^[=@\t\r]/.test(s) || (/^[+-]/.test(s) && !/^[+-]?\d+(\.\d+)?$/.test(s))))
    s = `'${s}`;
  return /[",\r\n']/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The filtered calls as CSV, times in UTC ISO 8601 (spreadsheets convert; a time zone in the file would be a guess). */
export function callsCsv(calls: TCall[]): string {
  const rows = calls.map((c) =>
    [
      c.callSid,
      c.direction,
      c.from,
      c.to,
      c.phoneNumberId,
      c.status,
      c.startedAt,
      c.endedAt,
      c.durationSeconds,
      c.billedMinutes,
      c.costBreakdown?.totalCost ?? null,
      c.answeredBy,
      c.answer,
      c.error?.code ?? null,
      c.error?.message ?? null,
      c.endReason,
      c.sipResponseCode,
      // The API's top-level errorCode; the column errorCode above has always been error.code.
      c.errorCode,
    ]
      .map(cell)
      .join(","),
  );
  return `${[COLUMNS.join(","), ...rows].join("\r\n")}\r\n`;
}
