import type { Env, MarkdownIt, Token } from 'markdown-it';
import { PLUGIN_TEXT_TOKEN, PLUGIN_TOKEN, pluginMeta } from './block-plugin-rule.ts';
import { assetMeta } from './core-rules.ts';
import { escapeHtml, escapeMarkdownText, markdownDestination } from './escape.ts';
import {
  INLINE_TOKEN,
  VARIABLE_TOKEN,
  isAutoLinkOpen,
  type AutoLinkMeta,
  type InlineMeta,
  type VariableMeta,
} from './inline-rules.ts';
import { unsafeDefinitions } from './link-safety.ts';
import {
  asText,
  excessCells,
  inertMarkdown,
  inlineFootnoteSource,
  inlineHtmlEdit,
  insertionMayCombine,
  isUnsafeLink,
  unsafeLinkEdit,
} from './markdown-safety.ts';
import { commonMarkParser, gfmParser, tokensInSourceOrder } from './parser.ts';
import type { Plugin } from './plugin-data.ts';
import { rootState, type DarkdownState } from './render-state.ts';
import { sanitizeHtmlBlock } from './sanitiser.ts';
import { InlineSearch, SourceLines, spliceText, type Replacement } from './source-lines.ts';

/**
 * Markdown output by splicing (docs/decisions/0003-darkdown-engine.md, 0008-markdown-output-safety.md):
 * the replacements a token stream calls for are made in its source, and the output is read again as
 * Markdown readers read it until it is safe for all of them.
 */

const NO_ASSETS: ReadonlyMap<string, string> = new Map();

/** What splicing needs from a Darkdown render (plain Markdown has neither). */
export interface DarkdownHooks {
  /** a block plugin as Markdown */
  plugin(plugin: Plugin): string;
  /** the env to read a piece of the same source again with */
  env(): Env;
}

/** How a token stream was read. */
export interface Reading {
  md: MarkdownIt;
  env: Env;
  darkdown?: DarkdownHooks;
}

function inlineItemMarkdown({ item }: InlineMeta): string {
  switch (item.kind) {
    case 'badge':
      return escapeMarkdownText(item.text);
    case 'icon':
      return '';
    case 'key':
      return `<kbd>${escapeHtml(item.key)}</kbd>`;
    case 'glossary':
      return escapeMarkdownText(item.term);
  }
}

/** How the tokens were read, and what collecting replacements found besides the replacements. */
interface Collected {
  readonly md: MarkdownIt;
  readonly darkdown: DarkdownHooks | undefined;
  /** the inline token's content, where the places of what is replaced are */
  readonly content: InlineSearch;
  /** text inserted in place of Darkdown (badges, variables…), which its surroundings might turn into markup */
  inserted: boolean;
  /**
   * the output here must be read again as a reader reads it: an edit was made for safety (HTML the
   * allowlist changes, a link to a refused URL), or a construct may read otherwise without GFM
   */
  recheck: boolean;
}

function collecting(md: MarkdownIt, darkdown: DarkdownHooks | undefined, content: string): Collected {
  return { md, darkdown, content: new InlineSearch(content), inserted: false, recheck: false };
}

/** Where the last replacement placed in the content ends (`from` if none is). */
function placedUpTo(out: readonly Replacement[], from: number): number {
  for (let i = out.length - 1; i >= 0; i -= 1) {
    const r = out[i];
    if (r?.at !== undefined) return Math.max(from, r.at + r.raw.length);
  }
  return from;
}

/** The constructs of one inline token that markdown output replaces, in source order. */
function collectReplacements(
  children: readonly Token[],
  out: Replacement[],
  env: Env,
  found: Collected,
  offset: number | null = 0,
): void {
  // Where a construct was read, in the content: its place in what the rule read (the content, or an
  // image's description), past where that starts; unknown in an inline footnote, read on its own.
  const at = (meta: { at: number }) => (offset === null ? {} : { at: offset + meta.at });
  for (let i = 0; i < children.length; i += 1) {
    const token = children[i];
    if (token === undefined) continue;
    if (token.type === INLINE_TOKEN) {
      const meta = token.meta as InlineMeta;
      out.push({ raw: meta.raw, text: inlineItemMarkdown(meta), ...at(meta) });
      found.inserted = true;
    } else if (token.type === VARIABLE_TOKEN) {
      const meta = token.meta as VariableMeta;
      out.push({ raw: meta.raw, text: escapeMarkdownText(meta.value), ...at(meta) });
      found.inserted = true;
    } else if (token.markup === 'linkify' && token.type === 'link_open') {
      // linkify-it takes quoted parts into a URL (`https://x.test/"[a](…)"`); without GFM they are Markdown.
      if (/[<[\]]/.test(children[i + 1]?.content ?? '')) found.recheck = true;
    } else if (isAutoLinkOpen(token)) {
      const meta = token.meta as AutoLinkMeta;
      const { title, href } = meta.autoLink;
      out.push({ raw: meta.raw, text: `[${escapeMarkdownText(title)}](${href})`, ...at(meta) });
    } else if (token.type === 'image') {
      // The alt text comes before the URL in the source.
      if (token.children !== null) {
        const opened =
          offset === null ? null : found.content.find(`![${token.content}]`, placedUpTo(out, offset), false);
        collectReplacements(token.children, out, env, found, opened === null ? null : opened[0] + 2);
      }
      const asset = assetMeta(token);
      if (asset !== null) out.push({ raw: asset.raw, text: markdownDestination(asset.asset), asUrl: true });
    } else if (token.type === 'html_inline') {
      const edit = inlineHtmlEdit(children, i);
      if (edit !== null) {
        out.push(edit.replacement);
        found.recheck = true;
        i = edit.last;
      }
    } else if (isUnsafeLink(token)) {
      out.push(unsafeLinkEdit(token));
      found.recheck = true;
    } else if (token.type === 'footnote_ref') {
      // An inline footnote is read again from its source: markdown-it-footnote keeps the tokens of only
      // the outermost of nested ones (the inner gets the same id, and its entry is overwritten).
      const source = inlineFootnoteSource(token, env);
      if (source !== null) {
        const footnoteEnv = found.darkdown?.env() ?? {};
        const [inline] = found.md.parseInline(source, footnoteEnv);
        collectReplacements(inline?.children ?? [], out, footnoteEnv, found, null);
      }
    }
  }
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
  let footnoteDepth = 0;
  for (const token of tokens) {
    const map = token.map ?? maps[maps.length - 1] ?? null;
    trackTable(token, table, lines, check);
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
      const anchor = lines.locate(map, token.content);
      if (found.length > 0) check.missed ||= !lines.replaceInline(map, found, anchor);
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
