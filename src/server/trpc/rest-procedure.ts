import type { AnyTRPCProcedure, TRPCProcedureBuilder, TRPCUnsetMarker } from "@trpc/server";
import type { z } from "zod";
import type { Need } from "../../shared/roles";
import { impliedErrors, traitsOf, type Access, type Standing } from "./builder-traits";

/**
 * A procedure's REST face, declared where the procedure is built: method,
 * path, success status and what the reference says about it. The route table
 * and the OpenAPI document are read from here, so a route cannot name a
 * procedure that does not exist.
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

type RestMeta = {
  method: HttpMethod;
  /** `:name` segments are path parameters, merged into the input. */
  path: `/api/${string}`;
  /** Default 200. */
  status?: 200 | 201;
  /** What the caller's role must allow (src/shared/roles.ts, docs/decisions.md §18): declared on every route, enforced by apiProcedure. */
  needs: Need;
  summary: string;
  /**
   * Error statuses particular to this route. The rest are derived: from the
   * builder (401 and 429 for credentials, 402 and 403 for standing: listing
   * one of those here fails when the route is built) and from the route's
   * shape (400, 404, 409, 413, 422, 500, 503).
   */
  errors?: number[];
  /**
   * The answer is the authenticated account itself: its authentication reads
   * the account in the same statement (GET /api/account, one round trip).
   */
  readsOwnAccount?: boolean;
  /**
   * Whether serving the route needs the database. Default true: such a route
   * answers 503 with Retry-After while the database is unreachable (decisions
   * §3), and its reference says so. False only for a route that touches nothing.
   */
  database?: boolean;
};

/** `/api/calls/:callSid/recording` → `"callSid"`: the path's parameters, which are not part of a request body. */
type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<Rest>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

// Distributes over a union input, which a plain Omit would flatten into its common keys.
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * The reference's examples of one route, typed by its own schemas so that an example that no longer fits
 * fails the typecheck where it stands (tests/unit/openapi.test.ts then checks each against the generated
 * JSON Schema, for what types cannot say: patterns, bounds). `request` is the JSON body, so only a route
 * with one has it; `response` is the success answer as the client receives it.
 */
type RouteExamples<
  Method extends HttpMethod,
  Path extends string,
  I extends z.ZodType | undefined,
  O extends z.ZodType,
> = {
  request?: Method extends "GET" ? never : I extends z.ZodType ? OmitEach<z.input<I>, PathParams<Path>> : never;
  response: z.output<O>;
};

export type RestSpec<
  Method extends HttpMethod,
  Path extends `/api/${string}`,
  I extends z.ZodType | undefined,
  O extends z.ZodType,
> = RestMeta & { method: Method; path: Path; input?: I; output: O; examples: RouteExamples<Method, Path, I, O> };

/**
 * What the table keeps of each procedure: its route, the schemas that document
 * it and its examples, and what its builder enforces (read from the builder,
 * never declared by the route): `access` and `standing` (builder-traits.ts),
 * and `auth`, whether it takes an API key or login JWT (`access` is `bearer`),
 * which the security suite checks both ways.
 */
export type RestContract = Required<Pick<RestMeta, "status">> &
  RestMeta & {
    access: Access;
    auth: boolean;
    standing: Standing;
    input?: z.ZodType;
    output: z.ZodType;
    examples: { request?: unknown; response: unknown };
  };

// Keyed by the built procedure: the table reads it back without reaching into tRPC's internals.
const contracts = new WeakMap<object, RestContract>();

export function restContractOf(procedure: unknown): RestContract | undefined {
  return typeof procedure === "function" || (typeof procedure === "object" && procedure !== null)
    ? contracts.get(procedure)
    : undefined;
}

type Builder<C, M, X, E, II, IO, OI, OO> = TRPCProcedureBuilder<C, M, X, II, IO, OI, OO, false, E>;
type Finish<B extends { query: unknown; mutation: unknown }, Method extends HttpMethod> = Method extends "GET"
  ? Pick<B, "query">
  : Pick<B, "mutation">;

/**
 * `restProcedure(apiProcedure, { method, path, summary, input, output, examples }).query(…)`:
 * applies the schemas, records the route on tRPC's `.meta()` (for middlewares)
 * and in this module (for the table), and offers `.query` for GET and
 * `.mutation` for the other methods only, so the kind cannot disagree with the method.
 */
export function restProcedure<
  C,
  M,
  X,
  E,
  O extends z.ZodType,
  Method extends HttpMethod,
  Path extends `/api/${string}`,
  I extends z.ZodType | undefined = undefined,
>(
  builder: Builder<C, M, X, E, TRPCUnsetMarker, TRPCUnsetMarker, TRPCUnsetMarker, TRPCUnsetMarker>,
  spec: RestSpec<Method, Path, I, O>,
): Finish<
  Builder<
    C,
    M,
    X,
    E,
    I extends z.ZodType ? z.input<I> : TRPCUnsetMarker,
    I extends z.ZodType ? z.output<I> : TRPCUnsetMarker,
    z.input<O>,
    z.output<O>
  >,
  Method
> {
  const { input, output, ...meta } = spec;
  const route = `${spec.method} ${spec.path}`;
  const traits = traitsOf(builder);
  if (!traits)
    throw new Error(`${route}: build it on a procedure builder from trpc/init.ts, which declares its traits`);
  const auth = traits.access === "bearer";
  if (auth !== (meta.needs !== "none")) {
    throw new Error(
      `${route}: a route with credentials needs self, read, write, admin, billing, members or owner; one without, none`,
    );
  }
  const implied = impliedErrors(traits);
  for (const status of meta.errors ?? []) {
    if (implied.includes(status))
      throw new Error(
        `${route} lists ${status}, which its builder implies (${traits.access}, standing ${traits.standing})`,
      );
    // docs/decisions.md §4: payment is a standing, so only a paid builder answers 402.
    if (status === 402) throw new Error(`${route} lists 402, which only a paid builder answers: use paidProcedure`);
  }
  if (meta.readsOwnAccount && !auth) throw new Error(`${route}: only a route with credentials reads its own account`);
  const contract: RestContract = {
    ...meta,
    status: meta.status ?? 200,
    access: traits.access,
    auth,
    standing: traits.standing,
    ...(input && { input }),
    output,
  };
  type Loose = {
    input(s: unknown): Loose;
    output(s: unknown): Loose;
    meta(m: unknown): Loose;
    query(fn: unknown): AnyTRPCProcedure;
    mutation(fn: unknown): AnyTRPCProcedure;
  };
  let typed = (builder as unknown as Loose).meta({ rest: contract });
  if (input) typed = typed.input(input);
  typed = typed.output(output);
  const record = (procedure: AnyTRPCProcedure) => {
    contracts.set(procedure, contract);
    return procedure;
  };
  const finish =
    spec.method === "GET"
      ? { query: (fn: unknown) => record(typed.query(fn)) }
      : { mutation: (fn: unknown) => record(typed.mutation(fn)) };
  return finish as never;
}
