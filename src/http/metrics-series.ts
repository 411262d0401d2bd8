import { Counter, Histogram, type MetricType, type Registry } from 'prom-client';

/**
 * Counts kept in plain fields on the hot path and handed to prom-client only when scraped.
 * prom-client's own inc() and observe() validate the labels and build a key string from them on
 * every call; here a request finds its series once (per route, per status) and then only adds to
 * numbers, which is what keeps `/metrics` free of cost on the read path.
 */
export type Labels = Readonly<Record<string, string>>;

/** One labelled count. */
export interface Cell {
  readonly labels: Labels;
  value: number;
}

/** A counter whose series are cells made once and incremented in place. */
export class CellCounter {
  private readonly cells: Cell[] = [];

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[]) {
    const cells = this.cells;
    sourcedCounter(registry, name, help, labelNames, () => cells.map((c) => [c.labels, c.value] as const));
  }

  /** A new series, reported from now on (at 0 until counted). */
  cell(labels: Labels): Cell {
    const cell = { labels, value: 0 };
    this.cells.push(cell);
    return cell;
  }
}

/** A counter read at scrape time from counts something else keeps (a cache's hits). */
export function sourcedCounter(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: () => Iterable<readonly [Labels, number]>,
): void {
  new Counter({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.inc(labels, value);
    },
  });
}

/** One labelled series of a histogram: a count per bucket, the sum and the count. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] ?? Infinity)) i++;
    // Above the last bound: only in +Inf, which is the count.
    if (i < bounds.length) this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * A prom-client histogram that reports series kept by HistogramSeries. The registry asks a metric for
 * its samples through get() (getForPromString() first where a metric has it, as Histogram does), so
 * both answer from the series; prom-client's own observe() is never called.
 */
export class SeriesHistogram extends Histogram {
  private readonly series: HistogramSeries[] = [];
  private readonly bounds: readonly number[];

  constructor(
    registry: Registry,
    private readonly metricName: string,
    private readonly helpText: string,
    labelNames: readonly string[],
    buckets: number[],
  ) {
    super({ name: metricName, help: helpText, labelNames, buckets, registers: [registry] });
    this.bounds = Object.freeze([...buckets].sort((a, b) => a - b));
  }

  /** A new series, reported from now on (empty until observed). */
  seriesFor(labels: Labels): HistogramSeries {
    const series = new HistogramSeries(labels, this.bounds);
    this.series.push(series);
    return series;
  }

  override async get(): Promise<Awaited<ReturnType<Histogram['get']>>> {
    const bucket = `${this.metricName}_bucket`;
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const series of this.series) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i] ?? 0;
        values.push({ labels: { ...series.labels, le: bound }, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { ...series.labels, le: '+Inf' }, value: series.count, metricName: bucket });
      values.push({ labels: series.labels, value: series.sum, metricName: `${this.metricName}_sum` });
      values.push({ labels: series.labels, value: series.count, metricName: `${this.metricName}_count` });
    }
    return {
      name: this.metricName,
      help: this.helpText,
      // Declared as an enum, written by the registry as the string it holds at run time.
      type: 'histogram' as unknown as MetricType,
      values,
      aggregator: 'sum',
      collect: () => undefined,
    };
  }

  getForPromString(): ReturnType<SeriesHistogram['get']> {
    return this.get();
  }
}
