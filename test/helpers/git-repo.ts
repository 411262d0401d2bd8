import type { ZipEntrySpec } from './zip.ts';

/** A page file of the platform's Git format: front matter lines, a blank line, the Markdoc body. */
export function gitPage(meta: Record<string, string | boolean>, body: string): string {
  const lines = Object.entries(meta).map(([key, value]) => `${key}: ${String(value)}`);
  return `---\n${lines.join('\n')}\n---\n\n${body}\n`;
}

/** Archive entries from a map of paths to contents, in the order given. */
export function gitRepo(files: Record<string, string>): ZipEntrySpec[] {
  return Object.entries(files).map(([name, data]) => ({ name, data }));
}
