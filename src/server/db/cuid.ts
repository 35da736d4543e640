import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/**
 * Ids in the shape Prisma's `@default(cuid())` makes (cuid v1: 25 characters,
 * 'c', time, counter, host fingerprint, randomness), for rows the engine writes
 * in plain SQL, so every row of a table has the same kind of id.
 */
const BASE = 36;
const pad = (s: string, size: number) => s.padStart(size, "0").slice(-size);
const fingerprint = (() => {
  const name = hostname();
  let sum = name.length + BASE;
  for (const ch of name) sum += ch.charCodeAt(0);
  return pad(process.pid.toString(BASE), 2) + pad(sum.toString(BASE), 2);
})();
let counter = Math.floor(Math.random() * BASE ** 4);

export function cuid(): string {
  counter = (counter + 1) % BASE ** 4;
  const random = randomBytes(8).readBigUInt64BE() % BigInt(BASE ** 8);
  return "c" + pad(Date.now().toString(BASE), 8) + pad(counter.toString(BASE), 4) + fingerprint + pad(random.toString(BASE), 8);
}
