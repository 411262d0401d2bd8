/** `%name%` or `%a.b%`: a dotted path of identifiers between percent signs. */
export const VARIABLE_SOURCE = String.raw`%([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)%`;

const VARIABLE_GLOBAL = new RegExp(VARIABLE_SOURCE, 'g');

/**
 * The value a variable path names, as text, or undefined when there is none. Only scalars count as
 * values: an object or array at the path is "no value", so `%a%` with `a: {b: 1}` stays as written.
 */
export function lookupVariable(
  variables: Readonly<Record<string, unknown>> | undefined,
  path: string,
): string | undefined {
  if (variables === undefined) return undefined;
  let current: unknown = variables;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  if (typeof current === 'string') return current;
  if (typeof current === 'number' || typeof current === 'boolean' || typeof current === 'bigint') {
    return String(current);
  }
  return undefined;
}

/** Substitutes variables in plain text (plugin titles and the like, which are not parsed as Markdown). */
export function resolveVariables(
  text: string,
  variables: Readonly<Record<string, unknown>> | undefined,
): string {
  if (variables === undefined || !text.includes('%')) return text;
  return text.replace(VARIABLE_GLOBAL, (whole, path: string) => lookupVariable(variables, path) ?? whole);
}
