/**
 * Names of files and folders in an export (decisions.md §6): a title made safe to be one path segment
 * on any system, and numbered when a sibling already has it. Import matches folders to pages with the
 * same rules, so an export reads back exactly.
 */

/** Longest segment written, in characters: room for a number and an extension within common limits. */
const MAX_SEGMENT = 120;

/** Characters no segment keeps: separators, controls, and what Windows forbids in a name. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f/\\:*?"<>|]/g;

/** A title as one safe path segment: never empty, never `.` or `..`, no separator or control. */
export function safeSegment(title: string, fallback = 'untitled'): string {
  let name = title.normalize('NFC').replace(UNSAFE, '-').replace(/\s+/g, ' ').trim();
  // Leading dots would hide the file on Unix and make `..`; trailing dots and spaces vanish on Windows.
  name = name.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  if ([...name].length > MAX_SEGMENT) name = [...name].slice(0, MAX_SEGMENT).join('').trimEnd();
  return name === '' ? fallback : name;
}

/**
 * Hands out sibling names, numbering a name already given (`Setup`, `Setup (2)`…). Names are compared
 * case-insensitively, so that an archive unpacked on a case-insensitive file system loses nothing.
 */
export class SiblingNames {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.taken.add(fold(name));
  }

  /** `base` (with `suffix` after it, such as an extension), numbered if a sibling has it already. */
  claim(base: string, suffix = ''): string {
    for (let n = 1; ; n++) {
      const name = n === 1 ? `${base}${suffix}` : `${base} (${n})${suffix}`;
      if (!this.taken.has(fold(name))) {
        this.taken.add(fold(name));
        return name;
      }
    }
  }
}

const fold = (name: string): string => name.normalize('NFC').toLocaleLowerCase('und');

/** `3 Setup.md` → { number: 3, name: 'Setup' }: an index entry's file name. */
export function entryFileName(file: string): { number: number | null; name: string } | null {
  if (!file.toLowerCase().endsWith('.md')) return null;
  const stem = file.slice(0, -3);
  // `s`: a real export's name may hold a line break (its page's title did).
  const numbered = /^(\d{1,6}) (.+)$/s.exec(stem);
  if (numbered) return { number: Number(numbered[1]), name: numbered[2] ?? '' };
  return { number: null, name: stem };
}
