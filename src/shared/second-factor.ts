/**
 * The log-in forms have one "two-factor code" box; the API has two fields (docs/decisions.md §22). Six digits
 * are the authenticator app's code; anything else is taken as a recovery code; nothing typed is neither.
 */
export function secondFactorFields(typed: string | undefined | null): { code?: string; recoveryCode?: string } {
  const value = (typed ?? "").trim();
  if (value === "") return {};
  return /^\d{6}$/.test(value.replace(/\s/g, "")) ? { code: value.replace(/\s/g, "") } : { recoveryCode: value };
}

/** What next-auth hands the log-in page (as `error`) when the password was right and a code is wanted. */
export const TWO_FACTOR_REQUIRED = "TWO_FACTOR_REQUIRED";

export const TWO_FACTOR_PROMPT = "Enter the 6-digit code from your authenticator app, or a recovery code.";
