/**
 * What a procedure builder enforces, carried by the builder itself so that a
 * route built on it derives its contract instead of restating it (init.ts
 * declares each builder's; restProcedure reads them):
 * - `access`: `public` takes no credentials; `sign-in` takes none either but
 *   is limited per client address and per email (register, log in); `bearer`
 *   needs an API key or login JWT and spends from the account's bucket.
 * - `standing` (docs/decisions.md §4): `paid` refuses INACTIVE (402) and
 *   SUSPENDED (403), `unsuspended` only SUSPENDED, `any` neither.
 */
export type Access = "public" | "sign-in" | "bearer";
export type Standing = "any" | "unsuspended" | "paid";
export type BuilderTraits = { access: Access; standing: Standing };

const traits = new WeakMap<object, BuilderTraits>();

export function declareTraits<B extends object>(builder: B, declared: BuilderTraits): B {
  traits.set(builder, declared);
  return builder;
}

/** Undefined for a builder init.ts did not declare (a `.use()` made elsewhere): its traits are unknown. */
export function traitsOf(builder: object): BuilderTraits | undefined {
  return traits.get(builder);
}

/**
 * The error statuses a builder's traits imply on every route built on it, so
 * no route lists them: 401 for a bad credential and 429 for an empty bucket
 * (`bearer`), 429 for the sign-in limits, 402 and 403 from the standing, and
 * 403 for the permission check on every authenticated route (a role that may not, a read-only API key on
 * any route but a GET, two-factor sign-in not yet enabled where the account requires it: docs/decisions.md §18).
 */
export function impliedErrors({ access, standing }: BuilderTraits): number[] {
  const statuses: number[] = [];
  if (access === "bearer") statuses.push(401);
  if (standing === "paid") statuses.push(402);
  if (standing !== "any" || access === "bearer") statuses.push(403);
  if (access !== "public") statuses.push(429);
  return statuses;
}
