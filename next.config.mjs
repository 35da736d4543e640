/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native or wasm packages stay outside the bundle and load from node_modules.
  serverExternalPackages: [
    "@node-rs/argon2",
    "@electric-sql/pglite",
    "pg",
    "@prisma/adapter-pg",
    "pino",
    "ioredis",
    "pg-boss",
  ],
  poweredByHeader: false,
  // Browsers still ask for /favicon.ico by habit; the icon is src/app/icon.svg.
  async redirects() {
    return [{ source: "/favicon.ico", destination: "/icon.svg", permanent: true }];
  },
};

export default nextConfig;
