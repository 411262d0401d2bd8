/**
 * What the reader site's reference page costs for definitions of growing size (decision 0028): the
 * view built (in production in a worker thread), its JSON written and read back (the trip to the
 * event loop), and the operations rendered by the templates (on the event loop, once per view: the
 * site keeps them while the view is kept), with the HTML's size. In this process, one round per
 * size; the first render includes the templates' warm-up.
 *
 *   node --import tsx bench/reference-page.bench.ts [--operations 30,300,3000]
 *
 * The definition: 200 object schemas of 30 properties (a sixth of them `$ref`s to other schemas,
 * the rest described strings), and N operations, each with a described path and query parameter
 * and a response of one of the schemas.
 */
import { parseArgs } from 'node:util';
import { descriptionHtml } from '../src/content/description-html.ts';
import { buildReferenceView } from '../src/openapi/reference-view.ts';
import { htmlPart } from '../src/site/site.html.ts';
import { ReferenceOperations } from '../src/site/templates/reference.tsx';

const { values } = parseArgs({ options: { operations: { type: 'string', default: '30,300,3000' } } });
const sizes = (values.operations ?? '').split(',').map(Number);

function definition(operations: number): string {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < 200; i++) {
    const properties: Record<string, unknown> = {};
    for (let j = 0; j < 30; j++) {
      properties[`p${j}`] =
        j % 5 === 0
          ? { $ref: `#/components/schemas/M${(i + j + 1) % 200}` }
          : { type: 'string', description: `Field **${j}** of model ${i}.` };
    }
    schemas[`M${i}`] = { type: 'object', required: ['p1'], properties, description: 'A model. '.repeat(20) };
  }
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < operations; i++) {
    paths[`/things${i}/{id}`] = {
      get: {
        operationId: `get${i}`,
        tags: [`t${i % 20}`],
        summary: `Get thing ${i}`,
        description: 'Gets a *thing*. '.repeat(30),
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'integer' } },
        ],
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: `#/components/schemas/M${i % 200}` } } },
          },
        },
      },
    };
  }
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Big', version: '1' },
    paths,
    components: { schemas },
  });
}

const time = <T>(work: () => T): [T, number] => {
  const started = performance.now();
  const result = work();
  return [result, Math.round(performance.now() - started)];
};

for (const operations of sizes) {
  const text = definition(operations);
  const [view, build] = time(() => buildReferenceView(JSON.parse(text), descriptionHtml));
  if (view === null) throw new Error('no view');
  const [json, write] = time(() => JSON.stringify(view));
  const [, read] = time(() => JSON.parse(json) as unknown);
  const [html, render] = time(() => htmlPart(ReferenceOperations({ view })));
  console.log(
    `${operations} operations, definition ${(text.length / 1e6).toFixed(2)} MB: view ${build} ms, ` +
      `JSON ${(json.length / 1e6).toFixed(1)} MB written ${write} ms read ${read} ms, ` +
      `render ${render} ms, HTML ${(html.length / 1e6).toFixed(1)} MB${view.cut ? ', cut' : ''}`,
  );
}
