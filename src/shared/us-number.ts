/**
 * Reads a US phone number as people write it — `(415) 555-0123`, `415.555.0123`, `1 415 555 0123`,
 * `+1 415-555-0123` — into E.164 (`+14155550123`), for the dashboard's number fields. The API stays
 * strict: it takes E.164 only. Anything that is not 10 digits (or 11 starting with 1) after the
 * separators are dropped is returned trimmed and unchanged, so the E.164 rule reports it as typed.
 */
export function normalizeUsNumber(input: string): string {
  const trimmed = input.trim();
  if (!/^\+?[\d\s().\-\u2010-\u2015]+$/.test(trimmed)) return trimmed;
  const digits = trimmed.replace(/\D/g, "");
  const plus = trimmed.startsWith("+");
  if (!plus && digits.length === 10) return `+1${digits}`;
  if (digits.length === 11 && digits.startsWith("1")) return `+${digits}`;
  return plus ? `+${digits}` : trimmed;
}
