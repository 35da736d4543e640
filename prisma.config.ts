import { defineConfig } from "prisma/config";

// Prisma 7 reads the datasource URL here; `env()` would throw when it is unset,
// which breaks `prisma generate` on a machine with no database configured.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "" },
});
