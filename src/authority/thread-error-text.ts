/** What a thread reports of an error it caught: its stack when it has one (the host logs it). */
export function threadErrorText(err: unknown): string {
  const { stack, message } = (err ?? {}) as { stack?: unknown; message?: unknown };
  return String(stack || message || err);
}
