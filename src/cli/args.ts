import { parseArgs } from 'node:util';

export class UsageError extends Error {}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

/** Parses `--flag value` options strictly; unknown flags and stray words are usage errors. */
export function parseOptions<T extends OptionSpec>(
  args: string[],
  spec: T,
  positionals = 0,
): { values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string }; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: spec, allowPositionals: positionals > 0, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(`expected ${positionals} argument(s), got ${parsed.positionals.length}`);
  }
  return parsed;
}

export function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}

export function positiveInt(value: string, what: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 2147483647) {
    throw new UsageError(`${what} must be a positive integer (got '${value}')`);
  }
  return Number(value);
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${flag} must be one of ${allowed.join(', ')} (got '${value}')`);
  }
  return value as T;
}
