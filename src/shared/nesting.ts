/**
 * Limits on nesting, checked on the text before anything parses or walks it recursively.
 */

/**
 * Whether JSON text opens more than `limit` arrays or objects inside one another; brackets inside
 * strings do not count. Malformed text is left to the parser.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether YAML text nests collections more than `limit` levels deep: block levels are counted from
 * indentation and from sequence dashes that open a level on the same line (`- - - x`), flow levels
 * from brackets outside quoted scalars. It may count too many levels only for brackets written in
 * plain or block scalars, far beyond any limit a real file comes near.
 */
export function yamlDepthExceeds(text: string, limit: number): boolean {
  const indents: number[] = [];
  let flow = 0;
  for (const line of text.split('\n')) {
    let i = 0;
    while (line.charCodeAt(i) === 0x20) i++;
    if (flow === 0) {
      if (i === line.length || line[i] === '#' || line[i] === '\r') continue;
      // Each dash followed by a space opens a level one column further in.
      let column = i;
      const levels = [column];
      while (line[column] === '-' && (line[column + 1] === ' ' || line[column + 1] === undefined)) {
        column += 2;
        while (line.charCodeAt(column) === 0x20) column++;
        levels.push(column);
      }
      while (indents.length > 0 && (indents[indents.length - 1] ?? 0) >= i) indents.pop();
      for (const level of levels) {
        if (indents.length === 0 || (indents[indents.length - 1] ?? -1) < level) indents.push(level);
      }
      if (indents.length > limit) return true;
    }
    let quote = 0;
    for (let j = i; j < line.length; j++) {
      const c = line.charCodeAt(j);
      if (quote !== 0) {
        if (quote === 0x22 && c === 0x5c) j++;
        else if (c === quote) quote = 0;
      } else if (c === 0x22 || c === 0x27) {
        quote = c;
      } else if (c === 0x23 && (j === 0 || line.charCodeAt(j - 1) === 0x20)) {
        break; // a comment
      } else if (c === 0x5b || c === 0x7b) {
        if (indents.length + ++flow > limit) return true;
      } else if (c === 0x5d || c === 0x7d) {
        if (flow > 0) flow--;
      }
    }
  }
  return false;
}
