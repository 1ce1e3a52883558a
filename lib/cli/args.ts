import { parseArgs, ParseArgsConfig } from "node:util";

/** A bad command line: printed to stderr, exit code 2 (CONTRACT §3). */
export class UsageError extends Error {}

export type Options = ParseArgsConfig["options"];

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export function parse(argv: string[], options: Options, maxPositionals: number): Parsed {
  let parsed: Parsed;
  try {
    const r = parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
    parsed = { values: r.values as Parsed["values"], positionals: r.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument: ${parsed.positionals[maxPositionals]}`);
  }
  return parsed;
}

export function str(p: Parsed, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === "string" ? v : undefined;
}

export function required(p: Parsed, name: string): string {
  const v = str(p, name);
  if (v === undefined || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

export function integer(p: Parsed, name: string, { min, max }: { min: number; max: number }): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${v}"`);
  }
  return Number(v);
}
