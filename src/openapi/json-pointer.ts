/** The tokens of a JSON Pointer (RFC 6901): `/paths/~1pets/get` → `paths`, `/pets`, `get`. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The tokens of a local `$ref` (`#/a/b`): a URI fragment, percent-decoded first as the validator does. */
export function fragmentTokens(ref: string): string[] {
  const fragment = ref.replace(/^#/, '');
  try {
    return pointerTokens(decodeURIComponent(fragment));
  } catch {
    return pointerTokens(fragment);
  }
}

export const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');
