/**
 * The path (`body.pages.0.title`) of the first string of a parsed JSON value, property names
 * included, that `holds` is true of; null when there is none.
 */
export function stringPath(value: unknown, path: string, holds: (text: string) => boolean): string | null {
  if (typeof value === 'string') return holds(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = stringPath(value[i], `${path}.${i}`, holds);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null && !Buffer.isBuffer(value)) {
    for (const [name, inner] of Object.entries(value)) {
      const here = `${path}.${name}`;
      const found = holds(name) ? here : stringPath(inner, here, holds);
      if (found !== null) return found;
    }
  }
  return null;
}
