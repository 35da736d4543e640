import { generateSecret, generateSync, generateURI, verifySync } from "otplib";

/**
 * TOTP (RFC 6238) as every authenticator app reads it: HMAC-SHA-1, 30-second steps, 6 digits. Pure apart from
 * the clock, which every function takes as `at` (milliseconds since the epoch, default now) so that tests can
 * pin time to the RFC's test vectors and to the edges of the window.
 */
const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
/** Steps either side of the current one a code is accepted in: a phone's clock a little off, or a code typed as it turned. */
const TOTP_WINDOW_STEPS = 1;
/** The issuer the authenticator app shows beside the code. */
const TOTP_ISSUER = "Routekit";

export type TotpOptions = { at?: number };

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommended length), base32 as apps expect it. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The time step a moment falls in (RFC 6238's T). */
export function totpStep(at: number = Date.now()): number {
  return Math.floor(at / 1000 / TOTP_PERIOD_SECONDS);
}

/** The code for a moment: what the app shows then. `secret` is base32, or raw bytes (the RFC's vectors). */
export function totpCode(
  secret: string | Uint8Array,
  opts: TotpOptions & { digits?: 6 | 7 | 8; algorithm?: "sha1" | "sha256" | "sha512" } = {},
): string {
  return generateSync({
    secret,
    epoch: Math.floor((opts.at ?? Date.now()) / 1000),
    period: TOTP_PERIOD_SECONDS,
    digits: opts.digits ?? TOTP_DIGITS,
    algorithm: opts.algorithm ?? "sha1",
  });
}

/**
 * The time step `code` belongs to, within ±TOTP_WINDOW_STEPS of `at`, or null. `afterStep` refuses that step
 * and every earlier one: a code that has signed in once (or an older one) never works again, even inside the
 * window. The comparison is otplib's, in constant time.
 */
export function matchTotp(
  secret: string,
  code: string,
  opts: TotpOptions & { afterStep?: number | null } = {},
): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const at = opts.at ?? Date.now();
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(at / 1000),
    period: TOTP_PERIOD_SECONDS,
    digits: TOTP_DIGITS,
    algorithm: "sha1",
    epochTolerance: TOTP_WINDOW_STEPS * TOTP_PERIOD_SECONDS,
    ...(opts.afterStep !== null && opts.afterStep !== undefined && { afterTimeStep: opts.afterStep }),
  });
  // `delta` is how many steps from `at` the code matched (-1, 0 or +1).
  return result.valid ? totpStep(at) + result.delta : null;
}

/** The `otpauth://` URL an app imports (as a QR code or pasted), labelled with the person's address. */
export function otpauthUrl(secret: string, email: string): string {
  return generateURI({
    issuer: TOTP_ISSUER,
    label: email,
    secret,
    algorithm: "sha1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
}
