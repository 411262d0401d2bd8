/**
 * Render throughput of the Darkdown engine on one core.
 *
 *   node --import tsx bench/render.bench.ts [renders-per-round]
 *
 * Renders a realistic ~5 KB feature-rich page (bench/fixtures/feature-page.ts) to each output format
 * after a warm-up, in several rounds, and prints pages per second: every round and the median by wall
 * clock, and the median and best round by this process's CPU time (which a busy neighbour on a shared
 * machine inflates far less). HTML includes sanitising; the target is at least 2,500 pages/s for HTML.
 * Two lines are for comparison, measured in the same run so their ratio to `html` holds on a busy
 * machine: the same page sanitised as a whole document (the slower path taken by pages whose raw HTML
 * needs it), and the floor of markdown-it and sanitize-html alone, defaults, on the same text.
 */
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { renderHtmlWholeDocument } from '../src/content/html-renderer.ts';
import {
  extractSections,
  renderHtml,
  renderMarkdown,
  renderText,
  type RenderContext,
} from '../src/content/index.ts';
import { featurePage, featurePageContext } from './fixtures/feature-page.ts';

type Render = (source: string, ctx?: RenderContext) => unknown;

const plainMarkdownIt = new MarkdownIt({ html: true });

const CASES: ReadonlyArray<[string, Render]> = [
  ['html', renderHtml],
  ['html, sanitised as a whole document', renderHtmlWholeDocument],
  ['markdown', renderMarkdown],
  ['text', renderText],
  ['sections', extractSections],
  ['floor: markdown-it + sanitize-html', (source) => sanitizeHtml(plainMarkdownIt.render(source))],
];

const perRound = Number(process.argv[2] ?? 500);
const rounds = 7;
const source = featurePage();

interface Rates {
  wall: number[];
  cpu: number[];
}

function measure(render: Render): Rates {
  for (let i = 0; i < perRound; i += 1) render(source, featurePageContext);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const cpuBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < perRound; i += 1) render(source, featurePageContext);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpuBefore);
    wall.push(perRound / seconds);
    cpu.push(perRound / ((used.user + used.system) / 1e6));
  }
  return { wall, cpu };
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const pad = (n: number): string => Math.round(n).toString().padStart(6);

console.log(`page: ${source.length} bytes; ${rounds} rounds of ${perRound} renders per format; pages/s`);
console.log(
  `${'format'.padEnd(36)}  ${'rounds (wall clock)'.padEnd(rounds * 7)}  median  CPU: median    best`,
);
for (const [name, render] of CASES) {
  const { wall, cpu } = measure(render);
  const each = wall.map(pad).join(' ');
  console.log(
    `${name.padEnd(36)}  ${each.padEnd(rounds * 7)}  ${pad(median(wall))}  ${pad(median(cpu))}  ${pad(Math.max(...cpu))}`,
  );
}
