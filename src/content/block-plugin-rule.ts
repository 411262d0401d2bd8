import type { StateBlock, Token } from 'markdown-it';
import { scanPluginJson, type CloseCache } from './json-scan.ts';
import { readPlugin, type Plugin } from './plugin-data.ts';
import { MAX_PLUGIN_DEPTH, stateOf } from './render-state.ts';

export const PLUGIN_TOKEN = 'darkdown_plugin';
/** A `$plugin[ … ]$` whose JSON does not parse: shown as the text it is, in every format. */
export const PLUGIN_TEXT_TOKEN = 'darkdown_plugin_text';

const OPENER = '$plugin[';

export type PluginMeta = { plugin: Plugin };

export function pluginMeta(token: Token): PluginMeta {
  return token.meta as PluginMeta;
}

/** One brace cache per parse and block range (see CloseCache); keyed by the parse's env. */
const closeCaches = new WeakMap<object, { src: string; limit: number; cache: CloseCache }>();

function closeCache(state: StateBlock, limit: number): CloseCache {
  const entry = closeCaches.get(state.env);
  if (entry !== undefined && entry.src === state.src && entry.limit === limit) return entry.cache;
  const cache: CloseCache = new Map();
  closeCaches.set(state.env, { src: state.src, limit, cache });
  return cache;
}

function lineOf(state: StateBlock, startLine: number, endLine: number, pos: number): number {
  let line = startLine;
  while (line < endLine - 1 && (state.eMarks[line] ?? 0) < pos) line += 1;
  return line;
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice((state.bMarks[line] ?? 0) + (state.tShift[line] ?? 0), state.eMarks[line]);
}

/**
 * For text that cannot be read as JSON, the end is a line ending in `]$` (the opener's own line included),
 * so the whole attempt shows as one piece of text. Another `$plugin[` line stops the search: a broken
 * plugin must never swallow the valid one after it.
 */
function fallbackEnd(state: StateBlock, startLine: number, endLine: number): number {
  for (let line = startLine; line < endLine; line += 1) {
    const text = lineText(state, line).trimEnd();
    if (line > startLine && text.startsWith(OPENER)) return -1;
    if (text.endsWith(']$') && (line > startLine || text.length > OPENER.length + 1)) return line;
  }
  return -1;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function blockPluginRule(
  state: StateBlock,
  startLine: number,
  endLine: number,
  silent: boolean,
): boolean {
  if ((state.sCount[startLine] ?? 0) - state.blkIndent >= 4) return false;
  const start = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
  const src = state.src;
  if (src.charCodeAt(start) !== 0x24 /* $ */ || !src.startsWith(OPENER, start)) return false;
  if (stateOf(state.env).depth >= MAX_PLUGIN_DEPTH) return false;

  const limit = state.eMarks[endLine - 1] ?? src.length;
  const extent = scanPluginJson(src, start + OPENER.length, limit, closeCache(state, limit));
  // Valid JSON that is not a plugin still has a known end; only unreadable JSON needs the fallback.
  const lastLine = extent
    ? lineOf(state, startLine, endLine, extent.closeEnd - 1)
    : fallbackEnd(state, startLine, endLine);
  if (lastLine < 0) return false;
  // Asked whether a plugin starts here (can it end a paragraph?), the JSON need not be read.
  if (silent) return true;
  const plugin = extent && readPlugin(parseJson(src.slice(extent.jsonStart, extent.jsonEnd)));

  const token = state.push(plugin ? PLUGIN_TOKEN : PLUGIN_TEXT_TOKEN, '', 0);
  token.block = true;
  token.map = [startLine, lastLine + 1];
  token.content = src.slice(start, state.eMarks[lastLine]);
  if (plugin) {
    const meta: PluginMeta = { plugin };
    token.meta = meta;
  }
  state.line = lastLine + 1;
  return true;
}
