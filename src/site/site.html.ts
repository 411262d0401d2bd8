import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * A template's document as HTML5 text. Preact escapes every text and attribute it writes; the one
 * raw insertion, the engine's sanitised content, is marked in the page template.
 */
export const htmlDocument = (document: VNode): string => `<!doctype html>${renderToString(document)}`;
