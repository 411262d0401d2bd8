import type { Env, MarkdownIt, Token } from 'markdown-it';
import { PLUGIN_TEXT_TOKEN, PLUGIN_TOKEN, pluginMeta } from './block-plugin-rule.ts';
import { collectReplacements, collecting, type DarkdownHooks } from './inline-replacements.ts';
import { readsAsBefore } from './insertion-escapes.ts';
import { unsafeDefinitions } from './link-safety.ts';
import { asText, excessCells, inertMarkdown, insertionMayCombine } from './markdown-safety.ts';
import { commonMarkParser, gfmParser, tokensInSourceOrder } from './parser.ts';
import { rootState, type DarkdownState } from './render-state.ts';
import { sanitizeHtmlBlock } from './sanitiser.ts';
import { SourceLines, spliceText, type Replacement } from './source-lines.ts';

/**
 * Markdown output by splicing (docs/decisions/0003-darkdown-engine.md, 0008-markdown-output-safety.md):
 * the replacements a token stream calls for are made in its source, and the output is read again as
 * Markdown readers read it until it is safe for all of them.
 */

export type { DarkdownHooks };

const NO_ASSETS: ReadonlyMap<string, string> = new Map();

/** How a token stream was read. */
export interface Reading {
  md: MarkdownIt;
  env: Env;
  darkdown?: DarkdownHooks;
}

/** Whether a reader would find HTML to change or a link to refuse in one line of inline Markdown. */
function inlineNeedsEdits(markdown: string): boolean {
  return readers().some((md) => readAgain(markdown, 'inline', md) !== markdown);
}

/** An HTML block's source, as markdown-it gives it, without its final line break. */
function blockHtml(token: Token): string {
  return token.content.endsWith('\n') ? token.content.slice(0, -1) : token.content;
}

/** `[` or a `<` that is not a `<br>` (which table cells are joined with): what may start markup. */
const MAY_START_MARKUP = /\[|<(?!br>)/;

/**
 * Tables: a reader without GFM reads one as a paragraph, where markup may run across cells (`| [a |
 * ](javascript:…) |`); when one holds anything that may start markup it is read that way, and if that
 * finds something to edit, the whole output is read again. Then each body row's cells past the header's
 * count are made safe (see excessCells).
 */
function trackTable(
  token: Token,
  table: { columns: number; inHead: boolean },
  lines: SourceLines,
  check: { recheck: boolean; missed: boolean },
): void {
  if (token.type === 'table_open' && token.map !== null && !check.recheck) {
    const text = lines.linesText(token.map);
    if (MAY_START_MARKUP.test(text) && readAgain(text, 'block', commonMarkParser()) !== text) {
      check.recheck = true;
    }
  } else if (token.type === 'thead_open') Object.assign(table, { columns: 0, inHead: true });
  else if (token.type === 'thead_close') table.inHead = false;
  else if (token.type === 'th_open' && table.inHead) table.columns += 1;
  else if (token.type === 'tr_open' && !table.inHead && token.map !== null) {
    const line = token.map[0];
    const text = lines.lineText(line);
    for (const [start, end] of excessCells(text, table.columns)) {
      const cell = text.slice(start, end);
      if (!/[<[]/.test(cell)) continue;
      const clean = safeMarkdown(cell, 'inline');
      if (clean === cell) continue;
      check.missed ||= !lines.replaceAt(line, start, end - start, clean);
      check.recheck = true;
    }
  }
}

/** What a footnote definition may hold that a reader without footnotes also reads as a paragraph. */
const PARAGRAPH_TOKENS = new Set(['paragraph_open', 'paragraph_close', 'inline']);

/**
 * Splices the replacements a token stream calls for into its source: plugins, Darkdown's inline
 * constructs, and the safety edits (HTML through the allowlist, links to refused URLs made text).
 */
export function splice(
  source: string,
  tokens: readonly Token[],
  reading: Reading,
  state: DarkdownState,
): string {
  const { md, env, darkdown } = reading;
  const lines = new SourceLines(source);
  const check = state.markdownCheck;
  const maps: Array<[number, number] | null> = [];
  const table = { columns: 0, inHead: false };
  let inCell = false;
  let footnoteDepth = 0;
  for (const token of tokens) {
    const map = token.map ?? maps[maps.length - 1] ?? null;
    trackTable(token, table, lines, check);
    if (token.type === 'td_open' || token.type === 'th_open') inCell = true;
    else if (token.type === 'td_close' || token.type === 'th_close') inCell = false;
    if (token.type === 'footnote_reference_open') footnoteDepth += 1;
    else if (token.type === 'footnote_reference_close') footnoteDepth -= 1;
    // A footnote definition's HTML or code block is a paragraph to a reader without footnotes.
    else if (footnoteDepth > 0 && !PARAGRAPH_TOKENS.has(token.type)) check.recheck = true;
    if (token.type === PLUGIN_TOKEN && token.map !== null && darkdown !== undefined) {
      lines.replaceBlock(token.map, darkdown.plugin(pluginMeta(token).plugin));
    } else if (token.type === PLUGIN_TEXT_TOKEN) {
      // Shown as text, but a reader reads it as Markdown: look at the whole output again.
      if (/[<[]/.test(token.content)) check.recheck = true;
    } else if (token.type === 'html_block' && token.map !== null) {
      const html = blockHtml(token);
      const clean = sanitizeHtmlBlock(html);
      if (clean !== html) {
        // In place: the block ends where it ended, so no blank lines are needed around it.
        const own = /^[ \t]*/.exec(html)?.[0].length ?? 0;
        const first = clean.replace(/^[ \t]+/, '');
        check.missed ||= !lines.replaceBlock(token.map, first, '<', false, own);
        check.recheck = true;
      }
    } else if (token.type === 'inline' && token.children !== null && map !== null) {
      const found: Replacement[] = [];
      const collected = collecting(md, darkdown, token.content);
      collectReplacements(token.children, found, env, collected);
      if (
        collected.delimited.length > 0 &&
        !readsAsBefore(token.children, spliceText(token.content, found), env)
      ) {
        for (const r of collected.delimited) r.text = `<span>${r.text}</span>`;
        // A backslash before a delimiter can itself change the reading (linkify reads past an escaped
        // `_`): without those, if that reads as the source did. A `<`'s backslash always stays.
        const plain = found.filter((r) => r.escapes !== true || r.raw === '<');
        if (
          plain.length < found.length &&
          readsAsBefore(token.children, spliceText(token.content, plain), env)
        ) {
          found.splice(0, found.length, ...plain);
        }
      }
      // A cell is located even with nothing to replace: the next cell of the row is looked for after it.
      if (found.length > 0 || inCell) {
        const anchor = lines.locate(map, token.content, inCell);
        if (found.length > 0) check.missed ||= !lines.replaceInline(map, found, anchor);
      }
      if (collected.recheck) check.recheck = true;
      else if (
        collected.inserted &&
        !check.recheck &&
        insertionMayCombine(token.content, found, spliceText) &&
        inlineNeedsEdits(spliceText(token.content, found))
      ) {
        check.recheck = true;
      }
    }
    if (token.nesting === 1) maps.push(map);
    else if (token.nesting === -1) maps.pop();
  }
  for (const { line, column } of unsafeDefinitions(env)) {
    check.missed ||= !lines.replaceAt(line, column, 1, asText('['));
    check.recheck = true;
  }
  return lines.apply();
}

/** Rounds of edits before giving up on edits; each round only removes or escapes, so one usually does. */
const SAFETY_ROUNDS = 5;

/**
 * How Markdown output is read when checking it: as GFM with bare URLs linked (which may take characters
 * into a URL) and without (where what a URL took is Markdown), and as plain CommonMark (no tables, no
 * footnotes).
 */
function readers(): MarkdownIt[] {
  return [gfmParser(true), gfmParser(false), commonMarkParser()];
}

/**
 * Markdown with the safety edits one reader's reading of it calls for; null when one of them cannot be
 * placed in the text (the reader's tokens and the text disagree), so nothing short of the last resort
 * is known to be safe.
 */
function readAgain(markdown: string, as: 'block' | 'inline', md: MarkdownIt): string | null {
  const env: Env = {};
  const tokens =
    as === 'block' ? tokensInSourceOrder(md.parse(markdown, env), env) : md.parseInline(markdown, env);
  if (as === 'inline') for (const token of tokens) token.map = [0, 1];
  const state = rootState(undefined, NO_ASSETS);
  const read = splice(markdown, tokens, { md, env }, state);
  return state.markdownCheck.missed ? null : read;
}

/**
 * Markdown made safe as its readers read it (see readers): the safety edits are made until no reading
 * finds any left, which matters where edits or splicing put characters next to each other that were not
 * before, or where readers disagree on what is Markdown. A document read as one line of inline Markdown
 * (a table cell) is read that way.
 */
export function safeMarkdown(markdown: string, as: 'block' | 'inline'): string {
  let current = markdown;
  for (let round = 0; round < SAFETY_ROUNDS; round += 1) {
    // Done only when no reader finds anything to edit: one reader's edits must not undo another's.
    let changed = false;
    for (const md of readers()) {
      const read = readAgain(current, as, md);
      if (read === null) return inertMarkdown(current);
      changed ||= read !== current;
      current = read;
    }
    if (!changed) return current;
  }
  return inertMarkdown(current);
}
