import { describe, expect, it } from "vitest";
import { engineToken } from "../../src/server/engine/engine-route";

describe("engineToken", () => {
  it("takes the routing token from an engine URL, with or without a query or trailing slash", () => {
    expect(engineToken("/api/engine/voice/rt_abc-DEF_1")).toBe("rt_abc-DEF_1");
    expect(engineToken("/api/engine/voice/rt_abc?call=c123")).toBe("rt_abc");
    expect(engineToken("/api/engine/voice/rt_abc/")).toBe("rt_abc");
    expect(engineToken("/api/engine/voice/rt%5Fabc")).toBe("rt_abc");
  });

  it("is null for anything else, including deeper paths and bad percent-encoding", () => {
    expect(engineToken("/api/engine/voice/")).toBeNull();
    expect(engineToken("/api/engine/voice/rt_abc/extra")).toBeNull();
    expect(engineToken("/api/engine/voic/rt_abc")).toBeNull();
    expect(engineToken("/api/engine/voice/%E0%A4%A")).toBeNull();
    expect(engineToken(undefined)).toBeNull();
  });
});
