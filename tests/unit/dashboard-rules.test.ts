import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { forbiddenReason } from "@/shared/account-standing";
import { roleReason } from "@/shared/role-reason";
import { apiSchemaResolver } from "@/client/api-schema-resolver";
import { errorDisplay } from "@/client/error-display";
import { createNumberFormSchema, editNumberFormSchema } from "@/app/dashboard/numbers/number-form-schemas";
import { NUMBER_FIELD_NAMES } from "@/app/dashboard/numbers/number-fields";
import { deliveryListInput, deliveryViewOf } from "@/app/dashboard/deliveries/delivery-status";

/** A tRPC error as the dashboard's client receives it: the API's envelope under data.appError. */
function apiError(appError: { code: string; message: string; details?: { path: string; message: string }[] }) {
  return TRPCClientError.from({ error: { message: appError.message, code: -32600, data: { appError } } });
}

describe("one display per failure (client/error-display.ts)", () => {
  it("an expired session shows nothing: the browser goes to log-in", () => {
    expect(errorDisplay(apiError({ code: "UNAUTHORIZED", message: "Log in." }), NUMBER_FIELD_NAMES)).toEqual({
      kind: "auth",
    });
  });

  it("validation naming this form's fields goes under those fields, as sentences, and nowhere else", () => {
    const err = apiError({
      code: "VALIDATION_FAILED",
      message: "Invalid input.",
      details: [{ path: "onCallStartUrl", message: "must use https" }],
    });
    expect(errorDisplay(err, NUMBER_FIELD_NAMES)).toEqual({
      kind: "fields",
      fields: { onCallStartUrl: "Call start URL must use https" },
    });
  });

  it("validation of something the form has no field for, and every other failure, is one action message", () => {
    const other = apiError({
      code: "VALIDATION_FAILED",
      message: "The cursor is not one this API gave out.",
      details: [{ path: "cursor", message: "invalid cursor" }],
    });
    expect(errorDisplay(other, NUMBER_FIELD_NAMES)).toEqual({
      kind: "action",
      message: "The cursor is not one this API gave out.",
    });
    expect(errorDisplay(apiError({ code: "NUMBER_TAKEN", message: "That number is taken." }))).toEqual({
      kind: "action",
      message: "That number is taken.",
    });
    expect(errorDisplay(new Error("offline"))).toEqual({ kind: "action", message: "offline" });
  });
});

describe("what the account's standing forbids (shared/account-standing.ts, as trpc/init.ts enforces)", () => {
  it("unpaid: registering numbers and outbound calls; suspended: every change to numbers too; active: nothing", () => {
    expect(forbiddenReason("INACTIVE", "registerNumber")).toMatch(/not active yet/);
    expect(forbiddenReason("INACTIVE", "outboundCall")).toMatch(/not active yet/);
    expect(forbiddenReason("INACTIVE", "simulateCall")).toMatch(/not active yet/);
    expect(forbiddenReason("INACTIVE", "changeNumber")).toBeNull();
    for (const action of ["registerNumber", "outboundCall", "changeNumber", "simulateCall"] as const) {
      expect(forbiddenReason("SUSPENDED", action)).toMatch(/suspended/);
      expect(forbiddenReason("ACTIVE", action)).toBeNull();
    }
    // Before the account query answers, nothing is disabled (the API still decides).
    expect(forbiddenReason(undefined, "registerNumber")).toBeNull();
  });
});

describe("number forms validate with the API's schema (react-hook-form resolver)", () => {
  const policy = { allowPrivate: false };
  const resolve = (values: Record<string, string>) =>
    apiSchemaResolver(createNumberFormSchema(policy), NUMBER_FIELD_NAMES)(values as never, undefined, {
      fields: {},
      shouldUseNativeValidation: false,
    });

  it("an empty error URL is no error URL; the rest goes to the API as typed", async () => {
    const result = await resolve({
      phoneNumber: "+14155550123",
      onCallStartUrl: "https://example.com/s",
      onCallEndUrl: "https://example.com/e",
      onErrorUrl: " ",
    });
    expect(result.errors).toEqual({});
    expect(result.values).toEqual({
      phoneNumber: "+14155550123",
      onCallStartUrl: "https://example.com/s",
      onCallEndUrl: "https://example.com/e",
    });
  });

  it("each bad field gets the API's message as a sentence under it", async () => {
    const result = await resolve({
      phoneNumber: "+1555",
      onCallStartUrl: "http://localhost/s",
      onCallEndUrl: "https://example.com/e",
      onErrorUrl: "",
    });
    expect(result.errors.phoneNumber?.message).toBe(
      "Phone number must be a US number in E.164 format, like +14155550123",
    );
    expect(result.errors.onCallStartUrl?.message).toMatch(/^Call start URL /);
    expect(result.errors.onCallEndUrl).toBeUndefined();
  });

  it("editing: an emptied error URL becomes null, which clears it", async () => {
    const result = await apiSchemaResolver(editNumberFormSchema(policy), NUMBER_FIELD_NAMES)(
      { onCallStartUrl: "https://example.com/s", onCallEndUrl: "https://example.com/e", onErrorUrl: "" } as never,
      undefined,
      { fields: {}, shouldUseNativeValidation: false },
    );
    expect(result.values).toEqual({
      onCallStartUrl: "https://example.com/s",
      onCallEndUrl: "https://example.com/e",
      onErrorUrl: null,
    });
  });
});

describe("the delivery log's view from its URL", () => {
  const view = (qs: string) => deliveryViewOf(new URLSearchParams(qs));

  const none = {
    eventType: null,
    phoneNumberId: null,
    destination: null,
    since: null,
    until: null,
  };
  it("reads ?status, ?page, ?delivery and ?endpoint, and ignores what it does not know", () => {
    expect(view("status=FAILED&page=3&delivery=abc&endpoint=ep1")).toEqual({
      status: "FAILED",
      offset: 40,
      selected: "abc",
      endpointId: "ep1",
      ...none,
    });
    expect(view("status=failed&page=-2&endpoint=%2F..%2Fx")).toEqual({
      status: null,
      offset: 0,
      selected: null,
      endpointId: null,
      ...none,
    });
    expect(view("page=nope")).toEqual({ status: null, offset: 0, selected: null, endpointId: null, ...none });
  });

  it("reads ?type, ?number, ?to, ?since and ?until, and ignores values it does not know", () => {
    expect(view("type=call.ended&number=pn_1&to=endpoint&since=2026-11-01&until=2026-11-27")).toMatchObject({
      eventType: "call.ended",
      phoneNumberId: "pn_1",
      destination: "endpoint",
      since: "2026-11-01",
      until: "2026-11-27",
    });
    expect(view("type=call.lost&number=%2Fx&to=anywhere&since=yesterday&until=2026-1-1")).toMatchObject(none);
    // Days are the viewer's: from the start of `since` to the start of the day after `until`, local time.
    const input = deliveryListInput(view("type=call.error&to=number-url&since=2026-11-01&until=2026-11-02"));
    expect(input).toMatchObject({ eventType: "call.error", destination: "number-url" });
    expect(new Date(input.since!).getTime()).toBe(new Date(2026, 10, 1).getTime());
    expect(new Date(input.until!).getTime()).toBe(new Date(2026, 10, 3).getTime());
  });

  it("builds the same list input the server page prefetches", () => {
    expect(deliveryListInput(view("status=PENDING&page=2"))).toEqual({ limit: 20, offset: 20, status: "PENDING" });
    expect(deliveryListInput(view(""))).toEqual({ limit: 20, offset: 0 });
    expect(deliveryListInput(view("endpoint=ep1"))).toEqual({ limit: 20, offset: 0, endpointId: "ep1" });
  });
});

describe("why a role's control is closed (shared/role-reason.ts)", () => {
  it("says who cannot, what, and whom to ask; nothing when the role may, or before it is known", () => {
    expect(roleReason("viewer", "write", "change numbers")).toBe(
      "Viewers can't change numbers: ask an owner or admin.",
    );
    expect(roleReason("developer", "admin", "change limits")).toBe(
      "Developers can't change limits: ask an owner or admin.",
    );
    expect(roleReason("admin", "owner", "close the account")).toBe("Admins can't close the account: ask an owner.");
    expect(roleReason("developer", "write", "change numbers")).toBeNull();
    expect(roleReason("owner", "owner", "close the account")).toBeNull();
    expect(roleReason(undefined, "owner", "close the account")).toBeNull();
  });
});
