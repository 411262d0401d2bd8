export class UsageError extends Error {}

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
