import { CountersignError } from "../model/index.js";

const TIMEOUT_MS = 5_000;
const MAX_BYTES = 64 * 1024;

/** GET a JWKS document over http(s), with a deadline and a size cap; JSON-parsed, not yet checked. */
export async function fetchJwks(url: string, { timeoutMs = TIMEOUT_MS, maxBytes = MAX_BYTES } = {}): Promise<unknown> {
  const fail = (message: string, cause?: unknown) =>
    new CountersignError("network_error", "receipt", `cannot fetch JWKS from ${url}: ${message}`, {
      retriable: true,
      details: { url },
      cause,
    });
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
  } catch (err) {
    throw fail(
      (err as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (err as Error).message,
      err,
    );
  }
  if (!response.ok) throw fail(`HTTP ${response.status}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > maxBytes) throw fail(`larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof CountersignError) throw err;
    throw fail(
      (err as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (err as Error).message,
      err,
    );
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    throw fail("the body is not JSON", err);
  }
}
