import { createHash, randomBytes } from "node:crypto";

/** docs/decisions.md §18: an invitation's link works for 7 days. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3600_000;

/**
 * The link's token is 256 random bits and only its SHA-256 is stored (as AccountToken does), so a database
 * read cannot be turned into a working link; a fast hash is enough for a secret that long.
 */
export function newInvitationToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashInvitationToken(token) };
}

export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
