/**
 * Phone number shapes, spelled once. docs/decisions.md §6: numbers registered here are
 * US E.164: `+1`, a 3-digit area code and a 7-digit number, neither starting with 0 or 1.
 */
export const US_E164 = /^\+1[2-9]\d{2}[2-9]\d{6}$/;
export const US_E164_RULE =
  "US E.164: +1, then a 3-digit area code and a 7-digit number, neither starting with 0 or 1 (like +14155550123)";

/** Any E.164 number (ITU-T): `+`, a country code not starting with 0, at most 15 digits. */
export const E164 = /^\+[1-9]\d{1,14}$/;
export const E164_RULE = "E.164: + and at most 15 digits, the first not 0 (like +14155550123)";
