import { initTRPC } from "@trpc/server";
import { authenticate, type Auth } from "../auth/authenticate";
import { AppError } from "../errors/app-error";
import { toErrorResponse } from "../errors/to-error-response";
import { POLICIES, enforceRateLimit } from "../rate-limit/rate-limiter";

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
};

const t = initTRPC.context<Context>().create({
  // tRPC clients (the dashboard) get the same code and message as REST clients.
  errorFormatter({ shape, error }) {
    const mapped = toErrorResponse(error);
    return { ...shape, message: mapped.body.error.message, data: { ...shape.data, stack: undefined, appError: mapped.body.error, httpStatus: mapped.status } };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;

/**
 * Login and registration: the per-IP limit runs before the input is parsed,
 * so malformed attempts count too; the per-email limit follows in the procedure.
 */
export const credentialProcedure = t.procedure.use(async ({ ctx, path, next }) => {
  await enforceRateLimit([`${path}:ip:${ctx.ip}`], POLICIES.auth);
  return next();
});

/** API key or login JWT; narrows ctx with the account and applies the per-account rate limit. */
export const apiProcedure = t.procedure.use(async ({ ctx, next }) => {
  const auth = await authenticate(ctx.authorization);
  await enforceRateLimit([`api:account:${auth.account.id}`], POLICIES.api);
  return next({ ctx: { ...ctx, auth } });
});

/**
 * decisions §4, the one rule for account standing: SUSPENDED is 403 wherever
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
export const paidProcedure = apiProcedure.use(requireStanding(true));
/** Operations a suspended account may not perform (changing or removing numbers). */
export const unsuspendedProcedure = apiProcedure.use(requireStanding(false));
