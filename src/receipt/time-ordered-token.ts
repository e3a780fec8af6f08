import { randomToken } from "../model/index.js";

/** base64url's 64 characters in ASCII order, so that the text sorts as the number does. */
const SORTED = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
/** 36 bits of milliseconds: they wrap every 795 days, which costs one jump in order, never uniqueness. */
const TIME_CHARS = 6;

/**
 * 22 base64url characters, like randomToken(16): the time in milliseconds (6 characters that
 * sort as it does), then 96 random bits. The stores index request ids and jtis; random keys put
 * every new row on a random page of each index, so every commit wrote (and the checkpointer
 * copied) a page per row per index, more than the rows themselves cost. Keys that grow with time
 * go to the end of the index, onto the same few pages. 96 random bits cannot be guessed either;
 * the time they reveal is in the request and the receipt anyway.
 */
export function timeOrderedToken(nowMs: number): string {
  let t = Math.floor(nowMs);
  let time = "";
  for (let i = 0; i < TIME_CHARS; i++) {
    time = SORTED[((t % 64) + 64) % 64]! + time;
    t = Math.floor(t / 64);
  }
  return time + randomToken(12);
}
