import { hash, verify } from "@node-rs/argon2";

// argon2id (the library's default algorithm) with OWASP's minimum parameters:
// 19 MiB, 2 passes, 1 lane. About 60 ms a hash on the target machines.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

// A valid hash of a random password: verifying against it when the email is
// unknown makes "no such email" cost the same time as "wrong password". Per module graph: a cache,
// and a second graph making its own decoy costs one hash more, nothing else.
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  return (decoy ??= hash(crypto.randomUUID(), OPTIONS));
}
