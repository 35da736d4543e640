/**
 * The account standing a procedure builder enforces (docs/decisions.md §4):
 * `paid` refuses INACTIVE (402) and SUSPENDED (403), `unsuspended` only
 * SUSPENDED, `any` neither. Builders register it here (init.ts), and
 * restProcedure checks that a route's declared standing is its builder's, so
 * the contract that docs and tests read can never disagree with what runs.
 */
export type Standing = "any" | "unsuspended" | "paid";

const standings = new WeakMap<object, Standing>();

export function declareStanding<B extends object>(builder: B, standing: Standing): B {
  standings.set(builder, standing);
  return builder;
}

export function standingOf(builder: object): Standing {
  return standings.get(builder) ?? "any";
}
