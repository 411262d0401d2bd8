/**
 * Text that no Markdown or Darkdown rule can change: one line, no characters with a meaning in Markdown,
 * no leading or trailing space, nothing that starts a list and nothing linkify would turn into a link.
 * Most table cells, titles and captions are like this; rendering them without a parse saves a full
 * markdown-it run each (a table of 30 cells would otherwise parse 31 documents).
 */
const SAFE = /^[^\0\s\\`*_[\]<>&|~%$@=+#:-][^\0\n\r\t\\`*_[\]<>&|~%$@]*$/;
const LIST_NUMBER = /^\d{1,9}[.)]/;
const LINK_LIKE = /\/\/|www\./i;

export function isPlainText(source: string): boolean {
  if (source === '') return true;
  return (
    SAFE.test(source) && source.trimEnd() === source && !LIST_NUMBER.test(source) && !LINK_LIKE.test(source)
  );
}

/**
 * A line that can only be a paragraph, so reading it with markdown-it's inline parser alone gives what a
 * full parse gives: no line break, no surrounding space, and no start that makes a block (heading, quote,
 * list item, rule, fence, HTML block, link or footnote definition, plugin). Inline footnotes are left to
 * the full parse, which appends their list.
 */
const BLOCK_START =
  /^(?:[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|#{1,6}(?:[ \t]|$)|>|```|~~~|<|\$plugin\[|\[[^\]]*\]:|(?:[-*_][ \t]*){3,}$|={1,}$)/;

export function isInlineOnly(source: string): boolean {
  return (
    source !== '' &&
    !source.includes('\n') &&
    !source.includes('\r') &&
    !source.includes('^[') &&
    source.trim() === source &&
    !BLOCK_START.test(source)
  );
}
