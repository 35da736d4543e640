import { metrics } from "../metrics/metrics";
import { initTRPC } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { roleAllows, type Need } from "../../shared/roles";
import { declareTraits } from "./builder-traits";
import { authenticate, type Auth } from "../auth/authenticate";
import { AppError } from "../errors/app-error";
import { ERROR_STATUS, TRPC_CODE_OF_STATUS } from "../errors/error-codes";
import { toErrorResponse, type ErrorEnvelope } from "../errors/to-error-response";
import {
  beginIdempotent,
  completeIdempotent,
  releaseIdempotent,
  requestHash,
  validIdempotencyKey,
} from "../services/idempotency/idempotency";
import { credentialLimits } from "../rate-limit/credential-limits";
import { enforceCredentialLimits } from "../rate-limit/enforce-credential-limits";
import { POLICIES, enforceRateLimit, rateLimitFields } from "../rate-limit/rate-limiter";

/**
 * The one tRPC core. Both transports build this context: the REST route table
 * (through a server-side caller) and, later, the dashboard over tRPC.
 */
export type Context = {
  requestId: string;
  /** Client address as the custom server determined it (socket, or X-Forwarded-For with TRUST_PROXY). */
  ip: string;
  /** The raw Authorization header, resolved lazily by the procedures that need it. */
  authorization: string | null;
  /** The Idempotency-Key header of a POST (docs/decisions.md §11); null or absent when none was sent. */
  idempotencyKey?: string | null;
  /** Filled by procedures for the transport to turn into headers. */
  responseMeta?: ResponseMeta;
};

/** `rateLimit`: the RateLimit and RateLimit-Policy fields of the bucket this request spent from (REST answers carry them). */
export type ResponseMeta = { idempotentReplayed: boolean; rateLimit?: Record<string, string> };
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";

/**
 * What a procedure says about itself to the middlewares: `rest` is the route
 * contract restProcedure records (rest-procedure.ts), of which they read
 * `readsOwnAccount`, `method` and `needs`; a procedure without a route (the
 * dashboard's own) declares `needs` with `.meta()`.
 */
type ProcedureMeta = { rest?: { readsOwnAccount?: boolean; method?: string; needs?: Need }; needs?: Need };

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // tRPC clients (the dashboard) get the same code and message as REST clients. tRPC wraps
    // whatever a procedure throws as INTERNAL_SERVER_ERROR, so its codes are set again from the
    // status: a 429 reads TOO_MANY_REQUESTS to a tRPC client, and tRPC answers with data.httpStatus.
    errorFormatter({ shape, error }) {
      const mapped = toErrorResponse(error);
      const code = TRPC_CODE_OF_STATUS[mapped.status];
      return {
        ...shape,
        code: TRPC_ERROR_CODES_BY_KEY[code],
        message: mapped.body.error.message,
        data: { ...shape.data, code, stack: undefined, appError: mapped.body.error, httpStatus: mapped.status },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = declareTraits(t.procedure, { access: "public", standing: "any" });

type MiddlewareCall = { ctx: Context; type: string; path: string; getRawInput: () => Promise<unknown> };
type NextResult = { ok: true; data: unknown } | { ok: false; error: unknown };

/**
 * docs/decisions.md §11, for every mutation of both transports: with an
 * Idempotency-Key, the first request claims the key and its answer is stored;
 * the same key and input replay that answer without running again. A 4xx is
 * stored and replayed like a success (as Stripe does: the same request would
 * fail the same way); a 5xx or an unexpected failure releases the key so a
 * retry runs. `scope` keeps keys apart: per account, or per address before sign-in.
 * Called from inside the middleware that knows the scope rather than as a
 * middleware of its own: each tRPC middleware level costs every request
 * (queries included) a round of context copying.
 */
async function idempotently<R extends NextResult>(
  { ctx, type, path, getRawInput }: MiddlewareCall,
  scope: string,
  next: () => Promise<R>,
): Promise<R> {
  const key = ctx.idempotencyKey;
  if (type !== "mutation" || key === null || key === undefined) return next();
  if (!validIdempotencyKey(key)) {
    throw new AppError("VALIDATION_FAILED", "The Idempotency-Key header must be 1 to 255 printable ASCII characters.", {
      details: [{ path: "Idempotency-Key", message: "1 to 255 printable ASCII characters" }],
    });
  }
  const claim = { scope, key };
  const begun = await beginIdempotent({ ...claim, requestHash: requestHash(path, await getRawInput()) });
  if (begun.kind === "replay") {
    metrics().idempotentReplays.inc();
    if (ctx.responseMeta) ctx.responseMeta.idempotentReplayed = true;
    const { status, body } = begun.answer;
    if (status >= 400) {
      const { code, message, details } = (body as ErrorEnvelope).error;
      throw new AppError(code in ERROR_STATUS ? code : "INTERNAL", message, { ...(details && { details }) });
    }
    // The stored output, already validated when it was first produced. tRPC
    // offers no way to answer from a middleware without running the
    // procedure, so the result is built in the shape `next()` returns.
    return { ok: true as const, data: body, ctx } as unknown as R;
  }
  let result: R;
  try {
    result = await next();
  } catch (err) {
    await releaseIdempotent(claim);
    throw err;
  }
  if (result.ok) {
    await completeIdempotent({ ...claim, answer: { status: 200, body: result.data } });
  } else {
    const mapped = toErrorResponse(result.error);
    if (mapped.status >= 500 || mapped.unexpected) await releaseIdempotent(claim);
    else await completeIdempotent({ ...claim, answer: { status: mapped.status, body: mapped.body } });
  }
  return result;
}

/**
 * Login and registration (rules in `credentialLimits`): the per-address limit
 * runs before the input is parsed, so malformed attempts count too; the
 * per-(email, address) and per-email limits run once the email is known.
 */
export const credentialProcedure = declareTraits(
  t.procedure
    .use(async ({ ctx, path, next }) => {
      await enforceCredentialLimits(
        credentialLimits({ procedure: path, ip: ctx.ip, stage: "address" }),
        (r, policy) => {
          if (ctx.responseMeta) ctx.responseMeta.rateLimit = rateLimitFields("address", policy, r.remaining);
        },
      );
      return next();
    })
    .use(async (opts) => {
      const { ctx, path, getRawInput, next } = opts;
      const raw = await getRawInput().catch(() => undefined);
      const email =
        typeof raw === "object" && raw !== null && typeof (raw as { email?: unknown }).email === "string"
          ? (raw as { email: string }).email
          : null;
      // Without a plausible email the input fails validation anyway; the address bucket has counted it.
      if (email !== null && email.length <= 320)
        await enforceCredentialLimits(credentialLimits({ procedure: path, ip: ctx.ip, email, stage: "credentials" }));
      return idempotently(opts, `ip:${ctx.ip}`, () => next());
    }),
  { access: "sign-in", standing: "any" },
);

/**
 * docs/decisions.md §18, the one permission check, on every authenticated procedure of both transports:
 * the caller's role must allow what the procedure needs (a procedure that declares nothing is refused, so
 * a new one cannot be open by omission); a read-only key may use the GET routes only; and a member of an
 * account that requires two-factor sign-in may, until they enable it, act only on themselves.
 */
export function authorize(auth: Auth, meta: ProcedureMeta | undefined): void {
  const needs = meta?.rest?.needs ?? meta?.needs;
  if (needs === undefined || !roleAllows(auth.role, needs))
    throw new AppError("FORBIDDEN", `Your role (${auth.role}) does not allow this.`);
  if (auth.scope === "read-only" && meta?.rest?.method !== "GET")
    throw new AppError(
      "FORBIDDEN",
      "This API key is read-only: it may only read (GET). Use a full key to make changes.",
    );
  if (auth.user && auth.account.requireTwoFactor && !auth.user.twoFactorEnabled && needs !== "self")
    throw new AppError(
      "FORBIDDEN",
      "This account requires two-factor sign-in: turn it on under Security (POST /api/auth/two-factor) first.",
    );
}

/**
 * API key or login JWT; narrows ctx with the account and applies the per-account rate limit. A route
 * whose answer is the account itself (`readsOwnAccount` on its contract) has it read in the same statement.
 * `authorize` decides whether the caller may run it at all.
 */
export const apiProcedure = declareTraits(
  t.procedure.use(async (opts) => {
    const { ctx, meta, next } = opts;
    const auth = await authenticate(ctx.authorization, { readAccount: meta?.rest?.readsOwnAccount === true });
    authorize(auth, meta);
    await enforceRateLimit([`api:account:${auth.account.id}`], POLICIES.api, (r) => {
      if (ctx.responseMeta) ctx.responseMeta.rateLimit = rateLimitFields("account", POLICIES.api, r.remaining);
    });
    return idempotently(opts, `account:${auth.account.id}`, () => next({ ctx: { ...ctx, auth } }));
  }),
  { access: "bearer", standing: "any" },
);

/**
 * docs/decisions.md §4, the one rule for account standing: SUSPENDED is 403 wherever
 * standing matters; INACTIVE is 402 where payment is required.
 */
function requireStanding(requirePayment: boolean) {
  return t.middleware(({ ctx, next }) => {
    const { status } = (ctx as Context & { auth: Auth }).auth.account;
    if (status === "SUSPENDED") throw new AppError("ACCOUNT_SUSPENDED");
    if (requirePayment && status !== "ACTIVE") throw new AppError("PAYMENT_REQUIRED");
    return next();
  });
}

/** Operations that need a paid, active account (new numbers, outbound calls). */
export const paidProcedure = declareTraits(apiProcedure.use(requireStanding(true)), {
  access: "bearer",
  standing: "paid",
});
/** Operations a suspended account may not perform (changing or removing numbers). */
export const unsuspendedProcedure = declareTraits(apiProcedure.use(requireStanding(false)), {
  access: "bearer",
  standing: "unsuspended",
});
