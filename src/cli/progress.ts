/** Redraws at most this often: a bar is for people, and writing is not free. */
const REDRAW_MS = 100;
const WIDTH = 30;

/**
 * A one-line progress bar on standard error, drawn only where a person watches (a terminal); elsewhere
 * it writes nothing, so logs and pipes keep the CLI's contract of one JSON object on standard output.
 */
export class ProgressBar {
  private drawnAt = Number.NEGATIVE_INFINITY;
  private drawn = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly enabled: boolean,
    private readonly label: string,
  ) {}

  update(done: number, total: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (done < total && now - this.drawnAt < REDRAW_MS) return;
    this.drawnAt = now;
    const share = total === 0 ? 1 : Math.min(1, done / total);
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
