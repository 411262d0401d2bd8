const HAS_HTML_SPECIAL = /[&<>"]/;
const HTML_SPECIAL = /[&<>"]/g;
const HTML_REPLACEMENT: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
};

export function escapeHtml(text: string): string {
  return HAS_HTML_SPECIAL.test(text) ? text.replace(HTML_SPECIAL, (c) => HTML_REPLACEMENT[c] ?? c) : text;
}

/**
 * Backslash-escapes the characters that would turn inserted text (a variable's value, a page title) into
 * Markdown syntax. `|` is included so the text is also safe inside a pipe table.
 */
export function escapeMarkdownText(text: string): string {
  return text.replace(/[\\`*_[\]<>|~]/g, '\\$&');
}

/** A link destination as Markdown accepts it: spaces, parentheses and angle brackets percent-encoded. */
export function markdownDestination(url: string): string {
  return url.replace(/[ ()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** A fence longer than any run of backticks in the code, so code holding ``` cannot close it early. */
export function codeFence(code: string): string {
  let longest = 0;
  for (const run of code.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

const SAFE_SCHEME = /^(?:https?:|mailto:|tel:)/i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * A link target a plugin may emit: http(s), mailto, tel or relative. Others (javascript:, data:) give ''.
 * HTML output is sanitised anyway; this keeps such links out of Markdown output too.
 */
export function safeLinkTarget(url: string): string {
  const trimmed = url.trim();
  // Browsers ignore control characters and spaces inside a scheme ("java\tscript:").
  const squeezed = [...trimmed].filter((c) => c > ' ').join('');
  return !ANY_SCHEME.test(squeezed) || SAFE_SCHEME.test(squeezed) ? trimmed : '';
}
