import { ArchiveFileError } from './import.archive.ts';
import type { ImportWarning } from './import.plan.ts';

/*
 * How a layout's reader bends to real exports (0011-export-import.md, "Real exports"): a bad file that
 * is no danger is skipped with a warning, and a name or title holding a line break is read as one line.
 */

export interface ReadState {
  pages: number;
  warnings: ImportWarning[];
  /** refuse the whole archive for one bad file, rather than skipping it */
  strict: boolean;
  /** Quire's own export: its titles are kept as they were stored, line breaks and all */
  ownExport: boolean;
}

/** Called with what reading one file threw: a warning if the file can be skipped, else the error again. */
export function skipOrThrow(state: ReadState, error: unknown, consequence = 'the file was skipped'): void {
  if (state.strict || !(error instanceof ArchiveFileError)) throw error;
  state.warnings.push({ file: error.file, message: `${capitalised(error.reason)}: ${consequence}.` });
}

const LINE_BREAK = /[ \t]*(?:\r\n|\r|\n)+[ \t]*/g;

/** A title or name as one line: the platform's titles may hold a line break, Quire's are one line. */
export const oneLine = (text: string): string => text.replace(LINE_BREAK, ' ').trim();

/** `oneLine` for the platform's titles, saying so when it changed anything. */
export function titleOf(title: string, file: string, state: ReadState): string {
  if (state.ownExport || !/[\r\n]/.test(title)) return title;
  state.warnings.push({ file, message: 'The title holds a line break: it was read as a space.' });
  return oneLine(title);
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
