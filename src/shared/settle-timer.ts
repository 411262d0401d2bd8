/**
 * How long after the last change queued background work starts: the change's transaction has
 * committed by then, and a burst of changes is taken in one go.
 */
const DEBOUNCE_MS = 500;
/** At the latest this long after the first change queued: a steady flow of edits holds nothing back. */
const MAX_WAIT_MS = 5_000;

/**
 * The start of background work that follows changes (link scans, renders ahead): `arm` on each
 * change, and `fire` runs DEBOUNCE_MS after the last one, or MAX_WAIT_MS after the first of a burst
 * at the latest. The timer never keeps the process alive.
 */
export class SettleTimer {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private firstArmedAt: number | null = null;

  constructor(private readonly fire: () => void) {}

  /** Whether a start is pending. */
  get armed(): boolean {
    return this.timer !== null;
  }

  /** (Re)arms the wait; `now`: fire on the next turn instead. */
  arm(now = false): void {
    this.disarm();
    const at = Date.now();
    this.firstArmedAt ??= at;
    const delay = now ? 0 : Math.min(DEBOUNCE_MS, this.firstArmedAt + MAX_WAIT_MS - at);
    this.timer = setTimeout(this.fire, Math.max(0, delay));
    this.timer.unref();
  }

  /** Cancels a pending start; the burst's first change still counts for the next arm. */
  disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The work started: the next change begins a new burst. */
  started(): void {
    this.firstArmedAt = null;
  }
}
