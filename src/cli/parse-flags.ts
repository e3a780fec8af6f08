import { parseArgs, type ParseArgsConfig } from "node:util";
import { usageError } from "./command.js";

/** node:util parseArgs, with its unknown-option and missing-value errors turned into usage errors. */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_")) throw usageError((err as Error).message);
    throw err;
  }
}

/** A positive integer flag (at most `max`), or undefined when it is not given. */
export function positiveFlag(
  value: string | undefined,
  flag: string,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) > max) {
    throw usageError(
      `${flag} must be a positive integer${max === Number.MAX_SAFE_INTEGER ? "" : ` up to ${max}`}, not "${value}"`,
    );
  }
  return Number(value);
}

/**
 * A `countersign NOUN SUB [ARG...]` command line: its flags, the subcommand (one of `subs`, else a
 * usage error that shows `forms`) and the arguments after it (at most `maxArgs`).
 */
export function parseSubcommand<O extends NonNullable<ParseArgsConfig["options"]>, S extends string>(
  argv: string[],
  spec: { options: O; subs: readonly S[]; forms: string; maxArgs: number },
): { values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>["values"]; sub: S; args: string[] } {
  const { values, positionals } = parseFlags({ args: argv, allowPositionals: true as const, options: spec.options });
  const [sub, ...args] = positionals;
  if (args.length > spec.maxArgs) throw usageError(`unexpected argument "${args[spec.maxArgs]}"`);
  if (!spec.subs.includes(sub as S))
    throw usageError(
      sub === undefined ? `missing subcommand: ${spec.forms}` : `unknown subcommand "${sub}"; try: ${spec.forms}`,
    );
  return { values, sub: sub as S, args };
}
