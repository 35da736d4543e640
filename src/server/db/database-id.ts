/**
 * routekit_id() (prisma/migrations/*_faster_database_ids) made in the process, for the voice request's
 * hot inserts (the call, its call.started delivery and attempts): the same 25 characters, 'c', the time
 * in microseconds (10 base-36 digits, so ids sort by creation), then 14 random base-36 digits. In
 * PL/pgSQL each id cost the database about 9 µs of CPU, three per voice request; here well under 1 µs.
 * Every other insert keeps the column default: an id from either is the same kind of value, and nothing
 * reads the time back out of one. The random digits come from a pooled buffer of the CSPRNG's bytes,
 * each byte used once, a byte of 252 or more skipped so that every digit is equally likely.
 */
import { randomBytes } from "node:crypto";
import { remember } from "../runtime/remember";

const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";
const RANDOM_DIGITS = 14;
const POOL_BYTES = 4096;
const HALF = 36 ** 5;
// Per module graph: random bytes, each used once, whichever graph draws them.
let pool = randomBytes(POOL_BYTES);
// Per module graph: where the next random byte is taken from `pool`.
let offset = 0;

// The wall clock in milliseconds, and within one the ids made in this process counted on in microseconds:
// a later id never sorts before an earlier one of the same process, even when the clock steps back. Once
// per process (the custom server's and the Next.js graphs both make ids), looked up once per graph.
const clock = remember("db.idClock", () => ({ lastMicros: 0 }));

function randomDigit(): string {
  for (;;) {
    if (offset === POOL_BYTES) {
      pool = randomBytes(POOL_BYTES);
      offset = 0;
    }
    const b = pool[offset++]!;
    if (b < 252) return DIGITS[b % 36]!;
  }
}

export function newDatabaseId(): string {
  const micros = Math.max(Date.now() * 1000, clock.lastMicros + 1);
  clock.lastMicros = micros;
  // Two halves of 5 digits each: small integers, whose base-36 text is cheap.
  let id = `c${Math.floor(micros / HALF)
    .toString(36)
    .padStart(5, "0")}${(micros % HALF).toString(36).padStart(5, "0")}`;
  for (let i = 0; i < RANDOM_DIGITS; i++) id += randomDigit();
  return id;
}
