import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

/**
 * `bytes` random bytes from the CSPRNG as base64url (ids, jtis). Drawn from a pool refilled a
 * page at a time, as crypto.randomUUID does: one randomBytes call per id showed in the
 * authority's profile of a submission. Each byte is handed out once and wiped as it goes.
 */
export function randomToken(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > POOL_BYTES)
    throw new RangeError(`randomToken takes 1 to ${POOL_BYTES} bytes, not ${bytes}`);
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const token = pool.toString("base64url", used, used + bytes);
  pool.fill(0, used, used + bytes);
  used += bytes;
  return token;
}
