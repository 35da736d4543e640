import { type Need, type Role, roleAllows } from "./roles";

/**
 * Why the dashboard hides or disables a control for a role (docs/decisions.md §18), in the sentence it shows
 * next to it: "Viewers can't change numbers: ask an owner or admin." Null when the role may. The server
 * refuses the same call with 403 FORBIDDEN whatever the dashboard shows; this only spares the click.
 *
 * `doing` completes "can't …" (e.g. "change numbers"). Who to ask: someone who can change the member's
 * role, which is an owner or admin, or only an owner for what only an owner may do.
 */
export function roleReason(role: Role | undefined, need: Need, doing: string): string | null {
  // Unknown role (the query has not answered): no reason yet; the server is still the authority.
  if (role === undefined || roleAllows(role, need)) return null;
  const who = need === "owner" ? "an owner" : "an owner or admin";
  return `${ROLE_PLURALS[role]} can't ${doing}: ask ${who}.`;
}

const ROLE_PLURALS: Record<Role, string> = {
  owner: "Owners",
  admin: "Admins",
  developer: "Developers",
  viewer: "Viewers",
};
