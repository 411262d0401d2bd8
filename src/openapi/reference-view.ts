import { slugify } from '../shared/slug.ts';
import { ViewBudget } from './reference-budget.ts';
import {
  credentialsOf,
  curlSample,
  exampleOf,
  serverOf,
  type CurlInput,
  type CurlParameter,
} from './reference-curl.ts';
import { ExampleTexts, firstExampleValue } from './reference-examples.ts';
import { follow, isObject, textOf, type Json } from './reference-json.ts';
import { locateOperations, type LocatedOperation } from './reference-operations.ts';
import { SchemaViews } from './reference-schema.ts';
import type {
  BodyView,
  MediaView,
  OperationGroup,
  OperationView,
  ParameterView,
  ReferenceView,
  ResponseView,
} from './reference-view.types.ts';
import { isSwagger2, upgradeSwagger } from './swagger-upgrade.ts';

/** Bounds of one operation's lists, and of the text of examples. */
const MAX_PARAMETERS = 100;
const MAX_RESPONSES = 50;
const MAX_MEDIA = 10;
const MAX_TEXT = 2_000;
const MAX_TAGS = 20;

/**
 * The reference page's view of a parsed definition (site.md §4), or null when it is no object. A
 * Swagger 2 document is shown as its OpenAPI 3.0 form; each operation's anchor is the one search
 * gives it, taken from the document as stored (search reads that one).
 */
export function buildReferenceView(
  document: unknown,
  markdown: (text: string) => string,
): ReferenceView | null {
  if (!isObject(document)) return null;
  const anchors = new Map(locateOperations(document).map((op) => [`${op.method} ${op.path}`, op.fragment]));
  const doc = isSwagger2(document) ? upgradeSwagger(document) : document;
  const builder = new ViewBuilder(doc, new ViewBudget(markdown));
  const info = isObject(doc.info) ? doc.info : {};
  // The document's own description first: the page's bounds may leave later ones out, never it.
  const description = builder.budget.html(info.description);
  const servers = (Array.isArray(doc.servers) ? doc.servers : []).filter(isObject).slice(0, 20);
  const located = locateOperations(doc);
  // Most operations show two schemas (a parameter's or the body's, and a response's).
  builder.budget.share(2 * located.length);
  const operations = located.map((operation) =>
    builder.operation({
      ...operation,
      fragment: anchors.get(`${operation.method} ${operation.path}`) ?? operation.fragment,
    }),
  );
  const groups = groupsOf(doc, operations, builder);
  const budget = builder.budget;
  return {
    title: budget.text(textOf(info.title), MAX_TEXT),
    version: budget.text(textOf(info.version), MAX_TEXT),
    description,
    servers: servers.map((server) => ({
      url: budget.text(textOf(server.url), MAX_TEXT),
      description: budget.text(textOf(server.description), MAX_TEXT),
    })),
    groups,
    cut: budget.cut,
  };
}

type Built = OperationView & { tags: string[] };

function groupsOf(doc: Json, operations: Built[], builder: ViewBuilder): OperationGroup[] {
  const declared = (Array.isArray(doc.tags) ? doc.tags : []).filter(isObject);
  const groups = new Map<string | null, OperationGroup>();
  const anchors = new Set<string>();
  const group = (tag: string | null): OperationGroup => {
    let found = groups.get(tag);
    if (found) return found;
    const base = `tag_${slugify(tag ?? 'other', 'tag')}`;
    let anchor = base;
    for (let n = 2; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
    const described = tag === null ? undefined : declared.find((t) => t.name === tag);
    found = { tag, anchor, description: builder.budget.html(described?.description), operations: [] };
    groups.set(tag, found);
    return found;
  };
  for (const tag of declared) if (typeof tag.name === 'string') group(tag.name);
  for (const { tags, ...operation } of operations) group(tags[0] ?? null).operations.push(operation);
  // Untagged operations come last; tags no operation names are not shown.
  const ordered = [...groups.values()].filter((g) => g.tag !== null && g.operations.length > 0);
  const untagged = groups.get(null);
  return untagged ? [...ordered, untagged] : ordered;
}

class ViewBuilder {
  readonly budget: ViewBudget;
  private readonly schemas: SchemaViews;
  private readonly examples: ExampleTexts;

  constructor(
    private readonly doc: Json,
    budget: ViewBudget,
  ) {
    this.budget = budget;
    this.schemas = new SchemaViews(doc, budget);
    this.examples = new ExampleTexts(doc, budget);
  }

  operation({ path, method, item, operation, fragment }: LocatedOperation): Built {
    const budget = this.budget;
    const tags = (Array.isArray(operation.tags) ? operation.tags : [])
      .filter((t) => typeof t === 'string')
      .slice(0, MAX_TAGS);
    const parameters = this.parameters(item, operation);
    const body = this.requestBody(operation.requestBody);
    return {
      fragment,
      method: method.toUpperCase(),
      path: budget.text(path, MAX_TEXT),
      summary: budget.text(textOf(operation.summary), MAX_TEXT),
      description: budget.html(operation.description),
      deprecated: operation.deprecated === true,
      tags,
      otherTags: tags.slice(1).map((tag) => budget.text(tag, MAX_TEXT)),
      parameters: parameters.map(({ view }) => view),
      requestBody: body?.view ?? null,
      responses: this.responses(operation.responses),
      curl: curlSample({
        server: serverOf(this.doc),
        method,
        path,
        parameters: parameters.map(({ curl }) => curl),
        body: body?.curl ?? null,
        credentials: credentialsOf(this.doc, operation),
      }),
    };
  }

  /** The path's parameters and the operation's, the operation's winning for the same name and place. */
  private parameters(item: Json, operation: Json): Array<{ view: ParameterView; curl: CurlParameter }> {
    const byKey = new Map<string, Json>();
    for (const list of [item.parameters, operation.parameters]) {
      if (!Array.isArray(list)) continue;
      for (const raw of list) {
        const parameter = follow(this.doc, raw).node;
        if (isObject(parameter)) byKey.set(`${textOf(parameter.in)}\n${textOf(parameter.name)}`, parameter);
      }
    }
    if (byKey.size > MAX_PARAMETERS) this.budget.cut = true;
    return [...byKey.values()].slice(0, MAX_PARAMETERS).map((parameter) => {
      const schema = parameter.schema ?? this.firstMedia(parameter.content)?.schema;
      const examples = this.examples.of(parameter, null);
      const schemaNode = follow(this.doc, schema).node;
      const example =
        parameter.example ??
        firstExampleValue(this.doc, parameter.examples) ??
        (isObject(schemaNode) ? (schemaNode.example ?? schemaNode.default) : undefined);
      const view: ParameterView = {
        name: this.budget.text(textOf(parameter.name), MAX_TEXT),
        in: this.budget.text(textOf(parameter.in), MAX_TEXT),
        required: parameter.required === true || parameter.in === 'path',
        deprecated: parameter.deprecated === true,
        description: this.budget.html(parameter.description),
        schema: schema === undefined ? null : this.schemas.view(schema),
        examples,
      };
      return {
        view,
        curl: { name: textOf(parameter.name), in: textOf(parameter.in), required: view.required, example },
      };
    });
  }

  private requestBody(raw: unknown): { view: BodyView; curl: NonNullable<CurlInput['body']> } | null {
    const body = follow(this.doc, raw).node;
    if (!isObject(body)) return null;
    const content = this.content(body.content);
    const first = this.firstMedia(body.content);
    const type = isObject(body.content) ? Object.keys(body.content)[0] : undefined;
    const example =
      first === undefined
        ? undefined
        : (first.example ?? firstExampleValue(this.doc, first.examples) ?? exampleOf(this.doc, first.schema));
    return {
      view: { description: this.budget.html(body.description), required: body.required === true, content },
      curl: { type: type ?? 'application/json', example, text: this.examples.text(example) },
    };
  }

  private responses(raw: unknown): ResponseView[] {
    if (!isObject(raw)) return [];
    const entries = Object.entries(raw);
    if (entries.length > MAX_RESPONSES) this.budget.cut = true;
    return entries.slice(0, MAX_RESPONSES).flatMap(([status, value]): ResponseView[] => {
      const response = follow(this.doc, value).node;
      if (!isObject(response)) return [];
      const headers = isObject(response.headers)
        ? Object.entries(response.headers).slice(0, MAX_PARAMETERS)
        : [];
      return [
        {
          status: this.budget.text(status, MAX_TEXT),
          description: this.budget.html(response.description),
          headers: headers.flatMap(([name, rawHeader]): ParameterView[] => {
            const header = follow(this.doc, rawHeader).node;
            if (!isObject(header)) return [];
            return [
              {
                name: this.budget.text(name, MAX_TEXT),
                in: 'header',
                required: header.required === true,
                deprecated: header.deprecated === true,
                description: this.budget.html(header.description),
                schema: header.schema === undefined ? null : this.schemas.view(header.schema),
                examples: [],
              },
            ];
          }),
          content: this.content(response.content),
        },
      ];
    });
  }

  private content(raw: unknown): MediaView[] {
    if (!isObject(raw)) return [];
    const entries = Object.entries(raw);
    if (entries.length > MAX_MEDIA) this.budget.cut = true;
    return entries.slice(0, MAX_MEDIA).flatMap(([type, value]): MediaView[] => {
      const media = follow(this.doc, value).node;
      if (!isObject(media)) return [];
      return [
        {
          type: this.budget.text(type, MAX_TEXT),
          schema: media.schema === undefined ? null : this.schemas.view(media.schema),
          examples: this.examples.of(media, media.schema),
        },
      ];
    });
  }

  private firstMedia(content: unknown): Json | undefined {
    if (!isObject(content)) return undefined;
    const first = follow(this.doc, Object.values(content)[0]).node;
    return isObject(first) ? first : undefined;
  }
}
