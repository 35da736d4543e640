import { procedures } from "../trpc/root";
import { restContractOf, type HttpMethod, type RestContract } from "../trpc/rest-procedure";

export type { HttpMethod };

/**
 * The REST API as a table, read from the procedures themselves (each declares
 * its route with `restProcedure`): path parameters (`:id`), query parameters
 * (GET) and the JSON body merge into the procedure's input; its zod schema
 * validates it.
 */
export type RestRoute = RestContract & {
  /** Dotted path of the procedure in appRouter, as the caller reaches it. */
  procedure: string;
};

/** Every procedure in the router, with its dotted path and its REST contract if it has one. */
export function listProcedures(
  record: object = procedures,
  prefix = "",
): { procedure: string; contract: RestContract | undefined }[] {
  return Object.entries(record).flatMap(([name, value]) =>
    typeof value === "function"
      ? [{ procedure: `${prefix}${name}`, contract: restContractOf(value) }]
      : listProcedures(value as object, `${prefix}${name}.`),
  );
}

export const restRoutes: readonly RestRoute[] = listProcedures().flatMap(({ procedure, contract }) =>
  contract ? [{ ...contract, procedure }] : [],
);
