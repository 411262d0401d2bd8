const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;

/** Lower case; runs of anything but letters and digits become one '-'; trimmed of '-'. */
export function headingAnchor(text: string): string {
  return text
    .toLowerCase()
    .replace(NOT_LETTER_OR_DIGIT, '-')
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
