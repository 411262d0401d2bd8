import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * A template's document as HTML5 text. Preact escapes every text and attribute it writes; the one
 * raw insertions, the engine's sanitised content and parts written here before (htmlPart), are
 * marked in the templates.
 */
export const htmlDocument = (document: VNode): string => `<!doctype html>${renderToString(document)}`;

/** A part of a document, written by its templates, to be kept and put in the document as it is. */
export const htmlPart = (part: VNode): string => renderToString(part);
