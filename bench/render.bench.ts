/**
 * Render throughput of the Darkdown engine on one core.
 *
 *   node --import tsx bench/render.bench.ts [renders-per-round]
 *
 * Renders a realistic ~5 KB feature-rich page (bench/fixtures/feature-page.ts) to each output format
 * after a warm-up, in several rounds, and prints pages per second: the median and best round by wall
 * clock, and the best round by this process's CPU time (which a busy neighbour on a shared machine
 * does not inflate). HTML includes sanitising; the target is at least 1,000 pages/s for HTML. The last
 * line is the floor for comparison: markdown-it and sanitize-html alone, defaults, on the same text.
 */
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
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
  ['markdown', renderMarkdown],
  ['text', renderText],
  ['sections', extractSections],
  ['floor: markdown-it + sanitize-html', (source) => sanitizeHtml(plainMarkdownIt.render(source))],
];

const perRound = Number(process.argv[2] ?? 500);
const rounds = 7;
const source = featurePage();

interface Rates {
  median: number;
  best: number;
  bestCpu: number;
}

function measure(render: Render): Rates {
  for (let i = 0; i < perRound; i += 1) render(source, featurePageContext);
  const wall: number[] = [];
  let bestCpu = 0;
  for (let r = 0; r < rounds; r += 1) {
    const cpuBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < perRound; i += 1) render(source, featurePageContext);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = process.cpuUsage(cpuBefore);
    wall.push(perRound / seconds);
    bestCpu = Math.max(bestCpu, perRound / ((cpu.user + cpu.system) / 1e6));
  }
  wall.sort((a, b) => a - b);
  return { median: wall[Math.floor(wall.length / 2)] ?? 0, best: wall[wall.length - 1] ?? 0, bestCpu };
}

const pad = (n: number): string => Math.round(n).toString().padStart(6);

console.log(`page: ${source.length} bytes; ${rounds} rounds of ${perRound} renders per format; pages/s`);
console.log(`${'format'.padEnd(34)}  median    best  best (CPU time)`);
for (const [name, render] of CASES) {
  const { median, best, bestCpu } = measure(render);
  console.log(`${name.padEnd(34)}  ${pad(median)}  ${pad(best)}  ${pad(bestCpu)}`);
}
