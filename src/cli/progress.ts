/** Redraws at most this often: a bar is for people, and writing is not free. */
const REDRAW_MS = 100;
const WIDTH = 30;

/**
 * Progress on standard error. On a terminal, a one-line bar redrawn in place; elsewhere (a CI log, a
 * pipe) plain lines, one at each tenth of the work and one at its end, which a log keeps readable.
 * Standard output is left alone: it holds the command's one JSON object.
 */
export class ProgressBar {
  private drawnAt = Number.NEGATIVE_INFINITY;
  private drawn = false;
  /** the last tenth written as a line, or -1 */
  private tenth = -1;

  constructor(
    private readonly write: (text: string) => void,
    private readonly terminal: boolean,
    private readonly label: string,
  ) {}

  update(done: number, total: number): void {
    const share = total === 0 ? 1 : Math.min(1, done / total);
    if (!this.terminal) {
      const tenth = Math.floor(share * 10);
      if (tenth === this.tenth) return;
      this.tenth = tenth;
      this.write(`${this.label} ${done}/${total} (${Math.floor(share * 100)}%)\n`);
      return;
    }
    const now = performance.now();
    if (done < total && now - this.drawnAt < REDRAW_MS) return;
    this.drawnAt = now;
    const filled = Math.round(share * WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}`;
    this.write(`\r${this.label} [${bar}] ${Math.floor(share * 100)}% ${done}/${total}`);
    this.drawn = true;
  }

  /** Ends the bar's line, so what follows starts on a line of its own. */
  end(): void {
    if (this.drawn) this.write('\n');
    this.drawn = false;
  }
}
