import type { KnipConfig } from "knip";

/**
 * knip, in `npm run lint`: no file that nothing imports, no export that no other file imports, no dependency that
 * nothing uses (CONTRIBUTING.md, "No dead exports"). Its Next.js, Vitest and Playwright plugins find the app's
 * routes and pages, the unit and integration projects with their global setup, and the browser suite; the entry
 * points they cannot know are listed here. Two workspaces: the service at the root, and the SDK (`sdk/`,
 * `@routekit/sdk`), whose public exports are its index and whose command is its bin.
 */
const config: KnipConfig = {
  workspaces: {
    ".": {
      entry: [
        // The Twilio simulator's command line (npm run twilio-sim); the custom server comes in through `npm run dev`.
        "src/twilio-simulator/cli.ts",
        // Each script and benchmark is run by hand or by CI (`npx tsx bench/<name>.ts`).
        "scripts/**/*.{ts,mjs}",
        "bench/*.ts",
        "bench/support/*.{ts,mjs}",
        "bench/reference/*.mjs",
        // Processes the integration tests start by path, and the files the unit tests read or run.
        "tests/support/delivery-worker-process.ts",
        "tests/unit/fixtures/*.ts",
      ],
      project: [
        "src/**/*.{ts,tsx,css}",
        "prisma/*.prisma",
        "scripts/**/*.{ts,mjs}",
        "bench/**/*.{ts,mjs}",
        "tests/**/*.ts",
        "e2e/**/*.ts",
      ],
      ignoreDependencies: [
        // /docs serves its browser bundle, read from node_modules by path (src/app/docs/scalar.js/route.ts).
        "@scalar/api-reference",
        // Spectral loads the OWASP ruleset by name from .spectral.yaml (npm run lint:openapi).
        "@stoplight/spectral-owasp-ruleset",
      ],
    },
    sdk: {
      // Its entries come from package.json (exports, bin) and the root's `sdk:generate` script.
      project: ["src/**/*.ts", "scripts/**/*.ts"],
    },
  },
  // openapi-typescript's output declares `$defs` beside the types the SDK re-exports; it is generated, not written.
  ignoreIssues: { "sdk/src/generated/openapi.ts": ["types"] },
  // Tailwind is imported from the stylesheet (`@import "tailwindcss"` in src/app/globals.css).
  compilers: {
    css: (text: string) => [...text.matchAll(/(?<=@)import[^;]+/g)].join("\n"),
  },
  ignoreBinaries: [
    // Installed from Debian's packages where they are used: bench/instructions-per-request.ts counts with
    // perf or valgrind, and tests/integration/redis-outage.test.ts starts its own Redis.
    "perf",
    "callgrind_control",
    "redis-server",
  ],
};

export default config;
