import type { Env } from 'markdown-it';
import { AnchorRegistry } from './heading-anchor.ts';
import type { RenderContext } from './types.ts';

/**
 * What one render carries through markdown-it's `env`: the caller's context, the page's asset map and
 * the anchors handed out so far. Nested Darkdown (a callout's text, a table cell) gets a fresh markdown-it
 * env, so link references and footnotes stay local, but shares this state, so anchors stay unique page-wide.
 */
export interface DarkdownState {
  readonly ctx: RenderContext;
  readonly assets: ReadonlyMap<string, string>;
  readonly anchors: AnchorRegistry;
  readonly depth: number;
  /**
   * shared like the anchors: whether Markdown output must be read again as a reader reads it, and
   * whether an edit made for safety could not be placed
   */
  readonly markdownCheck: { recheck: boolean; missed: boolean };
  /** shared too: whether raw HTML was written in a way only a whole-document sanitise can follow */
  readonly htmlCheck: { wholeDocument: boolean };
}

/** Plugins nest through JSON strings; past this depth a plugin is read as text rather than recursed into. */
export const MAX_PLUGIN_DEPTH = 6;

const KEY = 'darkdown';
const EMPTY_CONTEXT: RenderContext = {};
const NO_ASSETS: ReadonlyMap<string, string> = new Map();

export function rootState(
  ctx: RenderContext | undefined,
  assets: ReadonlyMap<string, string>,
): DarkdownState {
  return {
    ctx: ctx ?? EMPTY_CONTEXT,
    assets,
    anchors: new AnchorRegistry(),
    depth: 0,
    markdownCheck: { recheck: false, missed: false },
    htmlCheck: { wholeDocument: false },
  };
}

export function childState(state: DarkdownState): DarkdownState {
  return { ...state, depth: state.depth + 1 };
}

export function envOf(state: DarkdownState): Env {
  return { [KEY]: state };
}

/** The state of a render; markdown-it calls without one (e.g. tests using the parser directly) get defaults. */
export function stateOf(env: Env | undefined): DarkdownState {
  const existing = env?.[KEY] as DarkdownState | undefined;
  if (existing !== undefined) return existing;
  const state = rootState(EMPTY_CONTEXT, NO_ASSETS);
  if (env !== undefined) env[KEY] = state;
  return state;
}
