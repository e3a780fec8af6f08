import { z } from "zod";
import { change, DURABLE, type StoreContext } from "./change.js";
import { parseInput } from "./parse-input.js";

const LoginLink = z
  .object({
    nonce: z.string().regex(/^[A-Za-z0-9_-]{22,64}$/, "must be base64url, 128 to 384 bits"),
    exp: z.number().int().positive(), // ms since the epoch
    approver: z.string().min(1).max(200),
  })
  .strict();
export type LoginLink = z.infer<typeof LoginLink>;

/**
 * Use an approver login link: true for the first use of its nonce before it expires, false for
 * every later one (in this process or any other sharing the database). Its `approver_login`
 * entry commits with it. Used links past their expiry are removed: they could not be used anyway.
 */
export async function useLoginLink(ctx: StoreContext, raw: LoginLink): Promise<boolean> {
  const link = parseInput(LoginLink, raw, "login link");
  return change(
    ctx,
    async (c) => {
      if (link.exp <= c.now) return false;
      await c.tx.run("DELETE FROM login_links WHERE exp < ?", [c.now]);
      const inserted = await c.tx.run(
        "INSERT INTO login_links (nonce, exp, used_at) VALUES (?, ?, ?) ON CONFLICT (nonce) DO NOTHING",
        [link.nonce, link.exp, c.now],
      );
      if (inserted === 1)
        await c.audit({ type: "approver_login", request_id: null, actor: link.approver, details: {} });
      return inserted === 1;
    },
    DURABLE,
  );
}
