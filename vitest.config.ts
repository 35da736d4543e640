import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname, "src"),
  // Tests are not React Server Components: the marker is the no-op it is there (tests/unit/server-only.test.ts).
  "server-only": path.resolve(import.meta.dirname, "node_modules/server-only/empty.js"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        // Two workers on CI's two cores: Vitest's default is one fewer than the cores, which is one here.
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          maxWorkers: 2,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          // One real server (built app + real PostgreSQL or the embedded one) for the whole run.
          globalSetup: ["tests/support/integration-global-setup.ts"],
          // Every event a test's receiver gets must match its schema in the event catalogue.
          setupFiles: ["tests/support/event-contract.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          // Two files at once on PostgreSQL: most of a file's time is spent waiting (timeouts, retries, servers
          // starting), and the run must fit CI's 30 minutes. Every file makes its own accounts and numbers, and the
          // in-process workers run on their own pg-boss schemas. One on the embedded database (no DATABASE_URL),
          // which runs one transaction at a time for every connection.
          maxWorkers: process.env.DATABASE_URL ? 2 : 1,
        },
      },
    ],
  },
});
