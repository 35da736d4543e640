import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Stripe from "stripe";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseEnv, setEnv } from "../../src/server/env";
import { AppError } from "../../src/server/errors/app-error";
import {
  STRIPE_REFUSED_MESSAGE,
  STRIPE_UNREACHABLE_MESSAGE,
  stripeFailure,
} from "../../src/server/integrations/stripe/stripe-errors";
import { logger } from "../../src/server/logger";

beforeAll(() =>
  setEnv(parseEnv({ DATA_DIR: mkdtempSync(path.join(tmpdir(), "routekit-stripe-errors-")), LOG_LEVEL: "silent" })),
);
afterEach(() => vi.restoreAllMocks());

const refused = (statusCode: number, message: string, code?: string) =>
  Stripe.errors.StripeError.generate({
    type: statusCode === 401 ? "authentication_error" : "invalid_request_error",
    message,
    code,
    statusCode,
  } as never);

describe("stripeFailure", () => {
  it("a 4xx (our configuration) is a 502 saying Stripe refused us, logged at error with Stripe's code, key redacted", () => {
    const error = vi.spyOn(logger(), "error");
    const warn = vi.spyOn(logger(), "warn");
    const mapped = stripeFailure(refused(400, "No such price: 'price_wrong'", "resource_missing"), "checkout");
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped.code).toBe("PROVIDER_UNAVAILABLE");
    expect(mapped.message).toBe(STRIPE_REFUSED_MESSAGE);
    expect(error).toHaveBeenCalledTimes(1);
    expect(warn).not.toHaveBeenCalled();
    expect(JSON.stringify(error.mock.calls[0]![0])).toContain("resource_missing");

    stripeFailure(refused(401, "Invalid API Key provided: sk_test_****abcd"), "portal");
    const logged = JSON.stringify(error.mock.calls[1]![0]);
    expect(logged).toContain("[redacted key]");
    expect(logged).not.toContain("sk_test");
  });

  it("5xx, 429 and network failures are 'could not be reached', logged at warn", () => {
    const error = vi.spyOn(logger(), "error");
    const warn = vi.spyOn(logger(), "warn");
    for (const err of [
      Stripe.errors.StripeError.generate({ type: "api_error", message: "boom", statusCode: 500 } as never),
      Stripe.errors.StripeError.generate({ type: "rate_limit_error", message: "slow down", statusCode: 429 } as never),
      new Stripe.errors.StripeConnectionError({ message: "ECONNRESET" } as never),
      new Error("socket hang up"),
    ]) {
      const mapped = stripeFailure(err, "checkout");
      expect(mapped.code).toBe("PROVIDER_UNAVAILABLE");
      expect(mapped.message).toBe(STRIPE_UNREACHABLE_MESSAGE);
    }
    expect(warn).toHaveBeenCalledTimes(4);
    expect(error).not.toHaveBeenCalled();
  });

  it("an AppError passes through unchanged", () => {
    const original = new AppError("PROVIDER_UNAVAILABLE", "already mapped");
    expect(stripeFailure(original, "checkout")).toBe(original);
  });
});
