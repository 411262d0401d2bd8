const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
// eslint-disable-next-line no-control-regex -- ASCII is the whole range
const ASCII = /^[\x00-\x7f]*$/;
/** The same class for ASCII text, where a Unicode-aware match costs several times as much. */
const NOT_ASCII_LETTER_OR_DIGIT = /[^a-z0-9]+/g;

/** Lower case; runs of anything but letters and digits become one '-'; trimmed of '-'. */
export function headingAnchor(text: string): string {
  const lower = text.toLowerCase();
  return lower
    .replace(ASCII.test(lower) ? NOT_ASCII_LETTER_OR_DIGIT : NOT_LETTER_OR_DIGIT, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Hands out unique anchors within one rendered page: the second "Setup" heading becomes `setup-2`, the
 * third `setup-3`, as GitHub does, so every heading stays linkable. A heading with no letters or digits
 * gets `section`, because an empty id cannot be linked to.
 */
export class AnchorRegistry {
  private readonly used = new Map<string, number>();

  claim(text: string): string {
    const base = headingAnchor(text) || 'section';
    let count = this.used.get(base);
    if (count === undefined) {
      this.used.set(base, 1);
      return base;
    }
    let candidate: string;
    do {
      count += 1;
      candidate = `${base}-${count}`;
    } while (this.used.has(candidate));
    this.used.set(base, count);
    this.used.set(candidate, 1);
    return candidate;
  }
}
