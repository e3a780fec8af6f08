import type { Keyring, KeyStore } from "../receipt/index.js";

/**
 * The key store as the authority reads it: the keyring file is read at most once per `ttlMs`
 * (every submission signs), so a `keys rotate` run beside the server is picked up within that.
 */
export function cachedKeyStore(inner: KeyStore, ttlMs = 5_000): KeyStore {
  let cached: { at: number; keyring: Promise<Keyring> } | undefined;
  return {
    keyring(now) {
      const t = now.getTime();
      if (cached === undefined || t - cached.at >= ttlMs || t < cached.at) {
        const keyring = inner.keyring(now);
        cached = { at: t, keyring };
        keyring.catch(() => (cached = undefined));
      }
      return cached.keyring;
    },
    async rotate(now) {
      cached = undefined;
      return inner.rotate(now);
    },
  };
}
