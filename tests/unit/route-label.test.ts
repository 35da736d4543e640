import { describe, expect, it } from "vitest";
import { routeLabel } from "@/server/http/route-label";

// A metric's route label is a template: never a routing token, an id, a SID or a number.
describe("routeLabel", () => {
  it("names the engine, tRPC, pages and static files by kind", () => {
    expect(routeLabel("/api/engine/voice/rt_8hVTu2-BLhA2PHwIjJl66da6G7WYjMmU", 200)).toBe("engine.voice");
    expect(routeLabel("/api/engine/voice/rt_abc?call=c123&control=dial&command=x", 200)).toBe("engine.control");
    expect(routeLabel("/api/trpc/calls.list?batch=1", 200)).toBe("trpc");
    expect(routeLabel("/dashboard/calls?status=busy", 200)).toBe("page");
    expect(routeLabel("/no/such/page", 404)).toBe("page.unknown");
    expect(routeLabel("/_next/static/chunks/main.js", 200)).toBe("static");
  });

  it("turns ids, SIDs, keys and numbers into :id", () => {
    expect(routeLabel("/api/phone-numbers/cmwra2uwb00022c7dend79uxw", 200)).toBe("/api/phone-numbers/:id");
    expect(routeLabel(`/api/calls/CA${"0a".repeat(16)}/hangup`, 200)).toBe("/api/calls/:id/hangup");
    expect(routeLabel("/api/phone-numbers/+14155550123", 400)).toBe("/api/phone-numbers/:id");
    expect(routeLabel("/api/account", 200)).toBe("/api/account");
  });

  it("gives a made-up path's 404 no label of its own, but keeps a known route's", () => {
    expect(routeLabel("/api/wp-admin/setup.php", 404)).toBe("api.unknown");
    routeLabel("/api/webhook-deliveries/cmwra2uwb00022c7dend79uxw", 200);
    expect(routeLabel("/api/webhook-deliveries/cmwra2uwb00022c7dend79zzz", 404)).toBe("/api/webhook-deliveries/:id");
  });

  it("stops adding templates past its bound", () => {
    for (let i = 0; i < 400; i++) routeLabel(`/api/made-up-${i}`, 200);
    expect(routeLabel("/api/made-up-final", 200)).toBe("api.other");
  });
});
