import { describe, expect, it } from "vitest";
import { errorsFromDetails, errorsFromIssues } from "@/shared/field-errors";
import { ZRegisterInput } from "@/shared/schemas/auth";

const NAMES = { email: "Email", password: "Password" };

describe("dashboard form errors", () => {
  it("turn the API schema's issues into one sentence per field", () => {
    const parsed = ZRegisterInput.safeParse({ email: "nope", password: "short" });
    expect(parsed.success).toBe(false);
    expect(errorsFromIssues(NAMES, parsed.error!.issues)).toEqual({
      email: "Email must be a valid email address",
      password: "Password must be at least 8 characters",
    });
  });
  it("take the server's details the same way, keeping the first per field and ignoring unknown paths", () => {
    expect(
      errorsFromDetails(NAMES, [
        { path: "email", message: "must be a valid email address" },
        { path: "email", message: "second" },
        { path: "(body)", message: "expected a JSON object" },
        { path: "password", message: "Already a sentence." },
      ]),
    ).toEqual({ email: "Email must be a valid email address", password: "Already a sentence." });
  });
});
