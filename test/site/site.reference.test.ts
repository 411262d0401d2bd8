import { describe, expect, it } from 'vitest';
import { createProject, createVersion } from '../helpers/factories.ts';
import { upload } from '../helpers/references.ts';
import { client, useTestApp } from '../helpers/test-app.ts';
import { bombDefinition, petsDefinition, swaggerDefinition } from './reference-definitions.ts';
import { createDocumentation, createPublicSite, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();

/** The HTML of one operation's section, from its opening tag to the next operation's. */
function operationHtml(body: string, fragment: string): string {
  const start = body.indexOf(`<section class="operation" id="${fragment}">`);
  expect(start, `no operation ${fragment}`).toBeGreaterThanOrEqual(0);
  const end = body.indexOf('<section class="operation"', start + 1);
  return body.slice(start, end === -1 ? undefined : end);
}

async function publishedReference(definition: string, options: { publish?: boolean } = {}) {
  const w = await createPublicSite(t.deps);
  const res = await upload(t.app, w.key, w.version.id, definition, {
    as: 'application/json',
    publish: options.publish ?? true,
  });
  expect(res.statusCode, res.body).toBe(201);
  return { ...w, reference: res.json<{ id: number; slug: string }>() };
}

interface Hit {
  sectionType: string;
  path: string;
  fragment: string;
}

async function refHits(key: string, query: string): Promise<Hit[]> {
  const res = await client(t.app, key).get(`/search?query=${encodeURIComponent(query)}&hits=100`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ hits: Hit[] }>().hits.filter((hit) => hit.sectionType === 'ref');
}

describe('the reader site: API references', () => {
  it('shows the operations grouped by tag, with parameters, schemas, examples and curl', async () => {
    const w = await publishedReference(petsDefinition());
    const site = `/sites/${w.project.id}`;
    const res = await visit(t.app, `${site}/v1/ref/${w.reference.slug}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.body;
    expect(body).toContain('<title>Pets API | ');
    expect(body).toContain('<h1>Pets API</h1>');
    expect(body).toMatch(
      new RegExp(`<link rel="canonical" href="http://localhost(:80)?${site}/v1/ref/pets-api"/>`),
    );
    expect(body).toMatch(/<meta name="description" content="The pet store API\./);
    expect(body).toMatch(new RegExp(`<a href="${site}/v1/ref/pets-api" aria-current="page">Pets API</a>`));

    // Groups in the order of the document's tags, each with its operations.
    const store = body.indexOf('<h2 id="tag_store">store</h2>');
    const pets = body.indexOf('<h2 id="tag_pets">pets</h2>');
    expect(store).toBeGreaterThan(0);
    expect(pets).toBeGreaterThan(store);
    expect(body.indexOf('id="listorders"')).toBeGreaterThan(store);
    expect(body.indexOf('id="listorders"')).toBeLessThan(pets);
    expect(body.indexOf('id="listpets"')).toBeGreaterThan(pets);
    expect(body).toContain('<p>Everything about <em>pets</em>.</p>');

    const list = operationHtml(body, 'listpets');
    expect(list).toContain('<h3>List the pets</h3>');
    expect(list).toContain('<span class="method method-get">GET</span> <code>/pets</code>');
    expect(list).toContain('<p>Pets, <em>newest first</em>.</p>');
    // Parameters: a $ref'd one, with its required mark, type, bounds and description; an enum.
    expect(list).toContain(
      '<th scope="row"><code>limit</code></th><td>query</td>' +
        '<td><span class="schema-type"><code>integer</code></span></td>' +
        '<td><span class="required">required</span></td>',
    );
    expect(list).toContain('How many at most');
    expect(list).toContain('≥ 1 · ≤ 100');
    expect(list).toMatch(
      /<code>kind<\/code>.*optional.*Allowed values: .*<code>cat<\/code>.*<code>newt<\/code>/s,
    );
    // The response: an array of the $ref'd Pet, its properties with required marks, a oneOf.
    expect(list).toContain('<code>array of Pet</code>');
    expect(list).toMatch(/<code class="property-name">id<\/code> <span class="required">required<\/span>/);
    expect(list).toContain('The name it answers to');
    expect(list).toMatch(/One of:.*<strong class="schema-name">Fur<\/strong>.*<code>black<\/code>.*Scales/s);
    expect(list).toContain('<pre><code>[\n  {\n    &quot;id&quot;: 7,');
    // curl: the server with its variable's default, the required query parameter, the credential.
    expect(list).toContain(
      "curl --globoff 'https://api.example.com/v1/pets?limit={limit}' \\\n" +
        '  -H &quot;Authorization: Bearer $TOKEN&quot;',
    );

    const add = operationHtml(body, 'addpet');
    expect(add).toContain('Request body <span class="required">required</span>');
    expect(add).toMatch(
      /All of:.*<strong class="schema-name">Pet<\/strong>.*microchip.*pattern: \^\[0-9\]\{15\}\$/s,
    );
    expect(add).toContain("curl -X POST 'https://api.example.com/v1/pets'");
    expect(add).toContain("-H 'Content-Type: application/json'");
    expect(add).toMatch(/-d '\{\n {2}&quot;id&quot;: 0,\n {2}&quot;name&quot;: &quot;string&quot;/);

    // A schema that contains itself: expanded once, then named.
    const family = operationHtml(body, 'get-pets-id-family');
    expect(family).toContain('<h3>GET /pets/{id}/family</h3>');
    expect(family.match(/property-name">children</g)).toHaveLength(1);
    expect(family).toContain('circular: Node is shown above, not again');
  });

  it('renders descriptions as Markdown and sanitises them', async () => {
    const w = await publishedReference(petsDefinition());
    const res = await visit(t.app, `/sites/${w.project.id}/v1/ref/${w.reference.slug}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<strong>pet store</strong>');
    expect(res.body).not.toContain('boom');
    expect(res.body).not.toMatch(/href="javascript:/i);
    expect(res.body).not.toMatch(/onerror/i);
    expect(res.body).toContain('<a>click</a>');
  });

  it('gives every operation the anchor search gives it', async () => {
    // Two operations whose anchors would be the same: search numbers the second, and so must the page.
    const extra = {
      '/twice': {
        get: { summary: 'Zebra first', responses: { '200': { description: 'ok' } } },
      },
      '/elsewhere': {
        put: {
          operationId: 'get-twice',
          summary: 'Zebra second',
          responses: { '200': { description: 'ok' } },
        },
      },
      '/Ünïcode/{päth}': {
        delete: {
          summary: 'Zebra third',
          parameters: [{ name: 'päth', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '204': { description: 'gone' } },
        },
      },
    };
    const w = await publishedReference(petsDefinition('Zoo', extra));
    const swagger = await upload(t.app, w.key, w.version.id, swaggerDefinition(), { as: 'application/json' });
    expect(swagger.statusCode, swagger.body).toBe(201);
    const hits = [
      ...(await refHits(w.key, 'zebra')),
      ...(await refHits(w.key, 'pets')),
      ...(await refHits(w.key, 'orders')),
    ];
    expect(hits.length).toBeGreaterThanOrEqual(6);
    expect(hits.map((hit) => hit.fragment)).toEqual(
      expect.arrayContaining(['get-twice', 'get-twice-2', 'delete-unicode-path', 'listpets', 'createuser']),
    );
    const pages = new Map<string, string>();
    for (const hit of hits) {
      const [path = '', fragment = ''] = hit.path.split('#');
      expect(fragment).toBe(hit.fragment);
      let page = pages.get(path);
      if (page === undefined) {
        const res = await visit(t.app, `/sites/${w.project.id}${path}`);
        expect(res.statusCode, path).toBe(200);
        page = res.body;
        pages.set(path, page);
      }
      expect(page.match(new RegExp(`id="${fragment}"`, 'g')), fragment).toHaveLength(1);
    }
  });

  it('shows the published definition only, and a newly published one at once', async () => {
    const w = await publishedReference(petsDefinition());
    const address = `/sites/${w.project.id}/v1/ref/${w.reference.slug}`;
    expect((await visit(t.app, address)).body).not.toContain('Adopt a pet');
    const draft = petsDefinition('Pets API', {
      '/adoptions': {
        post: { operationId: 'adopt', summary: 'Adopt a pet', responses: { '201': { description: 'ok' } } },
      },
    });
    expect(
      (await upload(t.app, w.key, w.version.id, draft, { as: 'application/json', publish: false }))
        .statusCode,
    ).toBe(201);
    const before = await visit(t.app, address);
    expect(before.statusCode).toBe(200);
    expect(before.body).toContain('List the pets');
    expect(before.body).not.toContain('Adopt a pet');
    const published = await client(t.app, w.key).put(`/reference/${w.reference.id}/publish`);
    expect(published.statusCode, published.body).toBe(200);
    const after = await visit(t.app, address);
    expect(after.body).toContain('<section class="operation" id="adopt">');
    expect(after.body).toContain('Adopt a pet');
  });

  it('after a change elsewhere in the project, shows the new navigation beside the same operations', async () => {
    const w = await publishedReference(petsDefinition());
    const address = `/sites/${w.project.id}/v1/ref/${w.reference.slug}`;
    const before = await visit(t.app, address);
    expect(before.statusCode).toBe(200);
    const link = `href="/sites/${w.project.id}/v1/care/feeding"`;
    expect(before.body).not.toContain(link);
    const section = await createDocumentation(t.deps, w.version.id, { title: 'Care', slug: 'care' });
    await sitePage(t.app, w.key, section.id, { title: 'Feeding schedule', slug: 'feeding' });
    const after = await visit(t.app, address);
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain(link);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const operations = (body: string) =>
      body.slice(body.indexOf('<div class="operation-groups">'), body.indexOf('</article>'));
    expect(operations(after.body)).toContain('<section class="operation"');
    expect(operations(after.body)).toBe(operations(before.body));
  });

  it('answers 404 for what readers cannot see', async () => {
    const w = await publishedReference(petsDefinition('Drafted'), { publish: false });
    const site = `/sites/${w.project.id}`;
    const notFound = async (path: string) => {
      const res = await visit(t.app, `${site}${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(res.body).toContain('<h1>Page not found</h1>');
    };
    // Never published.
    await notFound(`/v1/ref/${w.reference.slug}`);
    // In an unpublished version.
    const hidden = await createVersion(t.deps, w.project.id, { name: 'v9', slug: 'v9', published: false });
    expect(
      (await upload(t.app, w.key, hidden.id, petsDefinition('Hidden'), { as: 'application/json' }))
        .statusCode,
    ).toBe(201);
    await notFound('/v9/ref/hidden');
    // In another version than the one named, or of another project.
    const other = await createPublicSite(t.deps);
    const theirs = await upload(t.app, other.key, other.version.id, petsDefinition('Theirs'), {
      as: 'application/json',
    });
    expect(theirs.statusCode).toBe(201);
    expect((await visit(t.app, `/sites/${other.project.id}/v1/ref/theirs`)).statusCode).toBe(200);
    await notFound('/v1/ref/theirs');
    // Deleted (there is no API for it yet: the row is marked as the trash would).
    const mine = await upload(t.app, w.key, w.version.id, petsDefinition('Gone'), { as: 'application/json' });
    expect((await visit(t.app, `${site}/v1/ref/gone`)).statusCode).toBe(200);
    await t.deps.database.db
      .updateTable('api_references')
      .set({ deleted_at: '2026-11-21 10:15:00' })
      .where('id', '=', mine.json<{ id: number }>().id)
      .execute();
    await notFound('/v1/ref/gone');
    // An invite project's references are behind its login.
    const invite = await createProject(t.deps, { access: 'invite' });
    expect((await visit(t.app, `/sites/${invite.id}/v1/ref/pets-api`)).statusCode).toBe(302);
  });

  it('shows a Swagger 2 document as its OpenAPI 3 conversion', async () => {
    const w = await publishedReference(swaggerDefinition());
    const res = await visit(t.app, `/sites/${w.project.id}/v1/ref/${w.reference.slug}`);
    expect(res.statusCode, res.body).toBe(200);
    const create = operationHtml(res.body, 'createuser');
    expect(create).toContain('<span class="method method-post">POST</span> <code>/users</code>');
    expect(create).toContain('Request body <span class="required">required</span>');
    expect(create).toContain('Content type <code>application/json</code>');
    expect(create).toMatch(/<strong class="schema-name">User<\/strong> <code>object<\/code>/);
    expect(create).toMatch(
      /<code class="property-name">email<\/code> <span class="required">required<\/span>/,
    );
    expect(create).toContain('nullable');
    expect(create).toContain("curl -X POST 'https://users.example.com/v2/users'");
    expect(create).toContain('-H &quot;X-Api-Key: $API_KEY&quot;');
    const avatar = operationHtml(res.body, 'setavatar');
    expect(avatar).toContain('Content type <code>multipart/form-data</code>');
    expect(avatar).toContain('<code>string (binary)</code>');
    expect(avatar).toContain("-F 'image=@file'");
    expect(avatar).toMatch(/<code>X-Rate-Limit<\/code>.*<code>integer<\/code>/s);
  });

  it('switches to the same reference in another version, else to its landing', async () => {
    const w = await publishedReference(petsDefinition());
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: true });
    const v3 = await createVersion(t.deps, w.project.id, { name: 'v3', slug: 'v3', published: true });
    expect((await upload(t.app, w.key, v2.id, petsDefinition(), { as: 'application/json' })).statusCode).toBe(
      201,
    );
    void v3;
    const site = `/sites/${w.project.id}`;
    const res = await visit(t.app, `${site}/v1/ref/pets-api`);
    expect(res.body).toContain(`<a href="${site}/v2/ref/pets-api" hreflang="en">v2</a>`);
    expect(res.body).toContain(`<a href="${site}/v3" hreflang="en">v3</a>`);
  });

  it('keeps the page of a hostile definition bounded', async () => {
    const w = await publishedReference(bombDefinition());
    const started = Date.now();
    const res = await visit(t.app, `/sites/${w.project.id}/v1/ref/${w.reference.slug}`);
    expect(res.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.body.length).toBeLessThan(2_000_000);
    expect(res.body).toContain('parts of it are not shown here');
    expect(res.body).toContain('id="get-boom"');
  });
});
