import { afterAll } from "vitest";
import { eventContractViolations } from "./receiver";

// A setup file of every integration test file (vitest.config.ts): an event outside its published schema,
// received by any test's receiver, fails that file (receiver.ts collects them).
afterAll(() => {
  if (eventContractViolations.length)
    throw new Error(`events outside the catalogue's schemas:\n${eventContractViolations.join("\n")}`);
});
