/**
 * docs/decisions.md §18: who may do what in an account. The one home of the
 * rule: the server's procedure builder enforces it (src/server/trpc/init.ts)
 * and the dashboard reads it to hide or disable what a role cannot use.
 *
 * A route declares what it `needs`; a role is the set of needs it grants:
 * - `self`: a signed-in person acting on themselves (password, two-factor, sessions, switching accounts): every member,
 *   and the one thing a member who must still enable two-factor may do;
 * - `read`: see the account's data (every member; a viewer never sees a secret, see `seesSecrets`);
 * - `write`: numbers, keys, calls and call control, deliveries, endpoints (a developer);
 * - `admin`: the account's settings and secrets: the Twilio connection, webhook secret and engine URL,
 *   limits and alert settings (an admin or owner);
 * - `billing`, `members`: billing, and the members and invitations (an admin or owner);
 * - `owner`: closing the account (an owner); making or unmaking owners is the members service's rule (`canManageOwners`).
 */
import { MemberRole } from "../generated/prisma/enums";

/** Most powerful first: the schema's order (the database enum is the one spelling). */
export type Role = MemberRole;
export const ROLES: readonly Role[] = Object.values(MemberRole);

export const NEEDS = ["none", "self", "read", "write", "admin", "billing", "members", "owner"] as const;
export type Need = (typeof NEEDS)[number];

const GRANTS: Record<Role, ReadonlySet<Need>> = {
  owner: new Set(NEEDS),
  admin: new Set<Need>(["none", "self", "read", "write", "admin", "billing", "members"]),
  developer: new Set<Need>(["none", "self", "read", "write"]),
  viewer: new Set<Need>(["none", "self", "read"]),
};

export function roleAllows(role: Role, need: Need): boolean {
  return GRANTS[role].has(need);
}

/** The roles that may use a route needing `need`, most powerful first (the reference and the security suite list them). */
export function rolesAllowed(need: Need): Role[] {
  return ROLES.filter((r) => roleAllows(r, need));
}

/** A viewer reads the account but never a secret: a webhook secret, an endpoint's secret, a full key. */
export function seesSecrets(role: Role): boolean {
  return role !== "viewer";
}

/** Only an owner makes another member an owner, or changes or removes an owner. */
export function canManageOwners(role: Role): boolean {
  return role === "owner";
}

/** One role at most as powerful as another: a member never grants more than they hold (a key, an invitation). */
export function roleAtMost(role: Role, ceiling: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(ceiling);
}

export const ROLE_LABELS: Record<Role, string> = {
  owner: "Owner",
  admin: "Admin",
  developer: "Developer",
  viewer: "Viewer",
};

/** What each role may do, in a sentence the dashboard shows beside the role picker. */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  owner: "Everything, including billing, members, owners and closing the account.",
  admin: "Everything but closing the account and changing owners.",
  developer: "Numbers, API keys, calls, deliveries and endpoints. Limits read-only; no billing, no members.",
  viewer: "Read only. Never sees a secret.",
};
