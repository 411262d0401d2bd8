import { InvalidFieldError } from '../../errors.ts';

/** The variables of one project, serialised, at most (they travel with every page read). */
const MAX_VARIABLES_BYTES = 64 * 1024;
/** Levels of nesting: `%a.b.c%` names three. */
const MAX_VARIABLES_DEPTH = 8;

/** A name `%name%` or one part of `%a.b%` can reach (src/content/variables.ts). */
const NAME = /^[A-Za-z_][\w-]*$/;

/**
 * Checks a project's variables as given and answers them as stored (JSON text): an object whose
 * names a page can reach and whose values are strings, finite numbers, booleans or such objects.
 * Anything else could never be read by a page, so it is refused rather than kept unreachable.
 */
export function storedVariables(field: string, variables: unknown): string {
  check(field, variables, 1);
  const text = JSON.stringify(variables);
  if (Buffer.byteLength(text) > MAX_VARIABLES_BYTES) {
    throw new InvalidFieldError(field, `must be at most ${MAX_VARIABLES_BYTES} bytes as JSON`);
  }
  return text;
}

function check(path: string, value: unknown, depth: number): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidFieldError(path, 'must be an object of names and values');
  }
  if (depth > MAX_VARIABLES_DEPTH) {
    throw new InvalidFieldError(path, `nests deeper than ${MAX_VARIABLES_DEPTH} levels`);
  }
  for (const [name, inner] of Object.entries(value)) {
    const at = `${path}.${name}`;
    if (!NAME.test(name)) {
      throw new InvalidFieldError(
        at,
        'is not a name a page can use: a letter or _, then letters, digits, _ or -',
      );
    }
    if (typeof inner === 'string' || typeof inner === 'boolean') continue;
    if (typeof inner === 'number') {
      if (!Number.isFinite(inner)) throw new InvalidFieldError(at, 'must be a finite number');
      continue;
    }
    if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
      check(at, inner, depth + 1);
      continue;
    }
    throw new InvalidFieldError(at, 'must be a string, a number, a boolean or an object of such values');
  }
}
