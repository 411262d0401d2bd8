/** Builders for Darkdown sources; each test writes the page it needs. */

export function plugin(type: string, data: unknown, pretty = false): string {
  const json = pretty ? JSON.stringify({ type, data }, null, 4) : JSON.stringify({ type, data });
  return `$plugin[${json}]$`;
}

/** JSON as the PHP exporter writes it: `\/` for `/`, `\uXXXX` for anything outside ASCII. */
export function phpPlugin(type: string, data: unknown): string {
  const json = JSON.stringify({ type, data }, null, 4)
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `$plugin[${json}]$`;
}

export function page(...blocks: string[]): string {
  return `${blocks.join('\n\n')}\n`;
}

/** Collapses whitespace between tags so assertions can be written on one line. */
export function squash(html: string): string {
  return html.replace(/>\s+</g, '><').trim();
}

/** HTML without highlight.js's spans: for tests about what surrounds code, not how it is coloured. */
export const plainCode = (html: string): string => html.replace(/<span class="hljs-[^"]*">|<\/span>/g, '');
