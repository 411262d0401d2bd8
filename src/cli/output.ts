import type { RetryPolicy } from './sync/sync.http.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** whether standard error is a terminal: progress bars are drawn only there */
  stderrIsTerminal?: boolean;
}

/** Error output is one line whatever the input echoed in it: control characters are escaped. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
}

/** What a client command (sync, import over HTTP) works with: no database, only the server. */
export interface ClientContext {
  io: CliIo;
  /** retries and waits; tests shorten them */
  policy?: RetryPolicy;
}
