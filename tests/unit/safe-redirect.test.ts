import { describe, expect, it } from "vitest";
import { DEFAULT_REDIRECT, safeRedirectPath } from "@/shared/safe-redirect";

/** What a browser does with a Location header: resolve it against the page it is on. */
const browserOrigin = (location: string) => new URL(location, "https://routekit.example/login").origin;

describe("the one redirect guard (docs/decisions.md §20)", () => {
  it("keeps a path of this service, with its query and fragment", () => {
    expect(safeRedirectPath("/dashboard/numbers?x=1")).toBe("/dashboard/numbers?x=1");
    expect(safeRedirectPath("/dashboard/calls?status=failed#top")).toBe("/dashboard/calls?status=failed#top");
    expect(safeRedirectPath("/login?notice=password-reset")).toBe("/login?notice=password-reset");
    expect(safeRedirectPath("/login?error=Invalid+email%2C+sorry&email=a%40b.c")).toBe(
      "/login?error=Invalid+email%2C+sorry&email=a%40b.c",
    );
    expect(safeRedirectPath("/")).toBe("/");
  });

  it("resolves dot segments the way a browser would, and answers the resolved path", () => {
    expect(safeRedirectPath("/dashboard/../dashboard/keys")).toBe("/dashboard/keys");
    expect(safeRedirectPath("/dashboard/./keys")).toBe("/dashboard/keys");
  });

  const OTHER_ORIGINS = [
    "//evil.example/",
    "///evil.example/",
    "/\\evil.example/",
    "\\\\evil.example",
    "/.//evil.example/",
    "/%2e//evil.example/",
    "/%2E//evil.example/",
    "/..//evil.example/",
    "/%2e%2e//evil.example/",
    "/dashboard/..//evil.example/",
    "/./\\evil.example",
    "/\t/evil.example/",
    "/\n/evil.example/",
    "/\r\n/evil.example/",
    "\t//evil.example/",
    " //evil.example/",
    "/ /evil.example/",
    "/\u00a0/evil.example/",
    "/%2F%2Fevil.example/",
    "/%2f/evil.example/",
    "/%5Cevil.example/",
    "/%5cevil.example/",
    "/%09/evil.example/",
    "/%0a/evil.example/",
    "/%2e%2f%2fevil.example/",
    "https://evil.example/",
    "http:evil.example",
    "https:/evil.example",
    "HTTPS://evil.example",
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "evil.example",
    "dashboard",
    "%2F%2Fevil.example",
    "/%",
  ];

  it.each(OTHER_ORIGINS)("sends %j to the dashboard", (raw) => {
    expect(safeRedirectPath(raw)).toBe(DEFAULT_REDIRECT);
  });

  it("never answers anything a browser reads as another origin", () => {
    for (const raw of [...OTHER_ORIGINS, "/dashboard", "/x?next=//evil.example", "/x#//evil.example"]) {
      expect(browserOrigin(safeRedirectPath(raw)), raw).toBe("https://routekit.example");
    }
  });

  it("a query or fragment that mentions another host is just data", () => {
    expect(safeRedirectPath("/x?next=//evil.example")).toBe("/x?next=//evil.example");
  });

  it("answers the dashboard for nothing, non-strings and absurd lengths", () => {
    for (const raw of [null, undefined, "", 42, {}, ["/x"], `/${"a".repeat(3000)}`])
      expect(safeRedirectPath(raw)).toBe(DEFAULT_REDIRECT);
  });

  it("with this service's origin, takes an absolute URL on it as its path, and nothing else", () => {
    const origin = "http://localhost:3000";
    expect(safeRedirectPath("http://localhost:3000/dashboard/keys?a=1", { origin })).toBe("/dashboard/keys?a=1");
    expect(safeRedirectPath("http://localhost:3000", { origin })).toBe("/");
    expect(safeRedirectPath("http://localhost:3000/.//evil.example/", { origin })).toBe(DEFAULT_REDIRECT);
    expect(safeRedirectPath("http://localhost:3001/dashboard", { origin })).toBe(DEFAULT_REDIRECT);
    expect(safeRedirectPath("http://localhost:3000@evil.example/", { origin })).toBe(DEFAULT_REDIRECT);
    expect(safeRedirectPath("https://evil.example/", { origin })).toBe(DEFAULT_REDIRECT);
    expect(safeRedirectPath("%", { origin })).toBe(DEFAULT_REDIRECT);
    expect(safeRedirectPath("/login", { origin })).toBe("/login");
  });
});
