import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import graphql from 'highlight.js/lib/languages/graphql';
import http from 'highlight.js/lib/languages/http';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { escapeText } from './html-allowlist.ts';

/**
 * Code blocks highlighted when a page is rendered, so the highlighting is stored with the render and
 * never computed per request: highlight.js's common languages (and their aliases: `js`, `ts`, `sh`,
 * `yml`, `html`, …). Its output is written again the way the sanitiser writes HTML: only `<span
 * class="hljs-…">` around text escaped by escapeText, so the engine's output stays what sanitising
 * it would give.
 */
const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  go,
  graphql,
  http,
  ini,
  java,
  javascript,
  json,
  kotlin,
  markdown,
  php,
  python,
  ruby,
  rust,
  shell,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Longer blocks are shown as they are: highlighting costs grow with the text, and readers lose little. */
const MAX_HIGHLIGHTED_CHARS = 50_000;

const PIECE = /<span class="([a-z0-9_ -]+)">|<\/span>|[^<]+/g;
const ENTITY = /&(amp|lt|gt|quot|#x27);/g;
const DECODED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#x27': "'" };

/**
 * The code as highlighted HTML for a fence's language, or null when the language is not one of these
 * (the caller escapes the code as before).
 */
export function highlightCode(code: string, language: string): string | null {
  if (language === '' || code.length > MAX_HIGHLIGHTED_CHARS) return null;
  const name = language.toLowerCase();
  if (hljs.getLanguage(name) === undefined) return null;
  let result: string;
  try {
    result = hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  } catch {
    return null;
  }
  let html = '';
  let open = 0;
  for (const match of result.matchAll(PIECE)) {
    const [piece, classes] = match;
    if (classes !== undefined) {
      const kept = classes
        .split(' ')
        .filter((c) => /^hljs-[a-z0-9_-]+$|^[a-z_]+_$/.test(c))
        .join(' ');
      html += kept === '' ? '<span>' : `<span class="${kept}">`;
      open++;
    } else if (piece === '</span>') {
      if (open === 0) continue;
      html += '</span>';
      open--;
    } else {
      html += escapeText(piece.replace(ENTITY, (_m, name: string) => DECODED[name] ?? ''));
    }
  }
  return html + '</span>'.repeat(open);
}
