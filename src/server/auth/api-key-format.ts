import { createHash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

/**
 * API keys (docs/decisions.md §5): `rtk_` + 43 base62 characters (32 random bytes) +
 * a 6-character base62 CRC32 of everything before it. The checksum lets secret
 * scanners recognise a real key offline and lets us reject a typo without a
 * database look-up. Keys are high-entropy, so a SHA-256 hash is enough at rest.
 */
export const API_KEY_PREFIX = "rtk_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BODY_LENGTH = 43; // ceil(256 bits / log2(62))
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
export const API_KEY_LENGTH = API_KEY_PREFIX.length + BODY_LENGTH + CHECKSUM_LENGTH;
const KEY_PREFIX_LENGTH = 12;

export function toBase62(value: bigint, width: number): string {
  let out = "";
  let v = value;
  while (v > 0n) {
    out = ALPHABET[Number(v % 62n)] + out;
    v /= 62n;
  }
  if (out.length > width) throw new Error("value does not fit the width");
  return out.padStart(width, "0");
}

/** Base62 of the CRC32, in plain numbers (a CRC32 fits one): this runs on every authenticated request. */
export function checksumOf(text: string): string {
  let v = crc32(text);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const body = toBase62(BigInt(`0x${randomBytes(32).toString("hex")}`), BODY_LENGTH);
  const head = API_KEY_PREFIX + body;
  return head + checksumOf(head);
}

const SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

/** Offline check: right shape and a matching checksum. */
export function isWellFormedApiKey(key: string): boolean {
  if (!SHAPE.test(key)) return false;
  const head = key.slice(0, -CHECKSUM_LENGTH);
  return checksumOf(head) === key.slice(-CHECKSUM_LENGTH);
}

export function keyPrefixOf(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}
