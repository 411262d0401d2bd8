import { parse as parseYaml } from 'yaml';
import { ContentError } from './content-error.ts';

/**
 * A page file's front matter (darkdown.md §5): `key: value` lines as the platform wrote them, not
 * YAML. A value runs to the end of its line, and a line without a key continues the value before it
 * (a title that held a line break). Quire's older exports wrote the same keys with a YAML writer,
 * which quoted awkward values; a value that reads as one YAML quoted or block scalar is taken as
 * that scalar, so those files read back as they were written.
 */

/** A value as read: a string, or `true` / `false` written bare. */
export type FrontMatterValue = string | boolean;

const KEY = /^[a-z][a-z0-9_]*$/;
/** Keys are lower case, so a title's second line such as `Part 2: Setup` is no key of its own. */
const KEY_LINE = /^([a-z][a-z0-9_]*):(?:[ \t]+(.*)|[ \t]*)$/;
/** A YAML block scalar's header: the older writer's form for a value holding a line break. */
const BLOCK_HEADER = /^[|>][-+]?[1-9]?$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

interface RawEntry {
  key: string;
  value: string;
  more: string[];
}

export function readFrontMatter(text: string): Record<string, FrontMatterValue> {
  const entries: RawEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const match = KEY_LINE.exec(line);
    if (match !== null) {
      entries.push({ key: match[1] ?? '', value: (match[2] ?? '').trim(), more: [] });
      continue;
    }
    const last = entries.at(-1);
    if (last !== undefined) last.more.push(line);
    else if (line.trim() !== '') {
      throw new ContentError(`Invalid front matter: the line ${JSON.stringify(line)} has no key`);
    }
  }
  const meta: Record<string, FrontMatterValue> = {};
  for (const entry of entries) {
    if (Object.hasOwn(meta, entry.key)) {
      throw new ContentError(`Invalid front matter: the key '${entry.key}' appears twice`);
    }
    meta[entry.key] = valueOf(entry);
  }
  return meta;
}

function valueOf({ key, value, more }: RawEntry): FrontMatterValue {
  const lines = more.map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length > 0) {
    if (BLOCK_HEADER.test(value)) {
      const scalar = yamlString(`${key}: ${value}\n${more.join('\n')}`, key);
      if (scalar !== undefined) return scalar;
    }
    return [value, ...lines].filter((l) => l !== '').join('\n');
  }
  if (value === 'true' || value === 'false') return value === 'true';
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
    // As YAML quoted it (escapes, doubled quotes); what is no valid YAML scalar just loses its quotes.
    return yamlString(`v: ${value}`, 'v') ?? value.slice(1, -1);
  }
  return value;
}

function yamlString(source: string, key: string): string | undefined {
  try {
    const parsed: unknown = parseYaml(source);
    const value = (parsed as Record<string, unknown> | null)?.[key];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes what `readFrontMatter` reads back the same: a value that would read otherwise (empty, with
 * spaces around it, a control character or line break, `true`, a leading quote, a block header) is
 * written double-quoted with JSON's escapes, which are YAML's too.
 */
export function writeFrontMatter(meta: Record<string, unknown>): string {
  let out = '';
  for (const [key, value] of Object.entries(meta)) {
    if (!KEY.test(key)) throw new ContentError(`Invalid front matter key ${JSON.stringify(key)}`);
    if (typeof value === 'boolean') out += `${key}: ${String(value)}\n`;
    else if (typeof value === 'string')
      out += `${key}: ${readsBack(value) ? value : JSON.stringify(value)}\n`;
    else throw new ContentError(`The front matter value of '${key}' must be a string or a boolean`);
  }
  return out;
}

const readsBack = (value: string): boolean =>
  value !== '' &&
  value === value.trim() &&
  !CONTROL.test(value) &&
  value !== 'true' &&
  value !== 'false' &&
  !/^["']/.test(value) &&
  !BLOCK_HEADER.test(value);
