/**
 * A published definition as the reference page shows it (site.md §4): plain data, built in a worker
 * thread from the parsed document (reference-view.ts) and rendered by the site's templates. Every
 * `html` field is a description's Markdown already rendered and sanitised (content/description-html.ts);
 * everything else is text the templates escape.
 */
export interface ReferenceView {
  title: string;
  /** `info.version` */
  version: string;
  description: string;
  servers: Array<{ url: string; description: string }>;
  groups: OperationGroup[];
  /** whether the page's bounds left something out (a very large or deeply nested definition) */
  cut: boolean;
}

/** The operations under one tag (the first each names), in the document's order. */
export interface OperationGroup {
  /** the tag, or null for the operations that name none */
  tag: string | null;
  /** the group heading's element id: `tag_…`, which no operation's anchor can be (they have no `_`) */
  anchor: string;
  description: string;
  operations: OperationView[];
}

export interface OperationView {
  /** the element id, exactly the fragment search gives the operation (reference-operations.ts) */
  fragment: string;
  /** upper case: GET, POST, … */
  method: string;
  path: string;
  summary: string;
  description: string;
  deprecated: boolean;
  /** tags beyond the first, under which the operation is grouped */
  otherTags: string[];
  parameters: ParameterView[];
  requestBody: BodyView | null;
  responses: ResponseView[];
  curl: string;
}

export interface ParameterView {
  name: string;
  /** path, query, header, cookie */
  in: string;
  required: boolean;
  deprecated: boolean;
  description: string;
  schema: SchemaView | null;
  examples: ExampleView[];
}

export interface BodyView {
  description: string;
  required: boolean;
  content: MediaView[];
}

export interface ResponseView {
  /** `200`, `4XX`, `default` */
  status: string;
  description: string;
  headers: ParameterView[];
  content: MediaView[];
}

export interface MediaView {
  type: string;
  schema: SchemaView | null;
  examples: ExampleView[];
}

export interface ExampleView {
  name: string | null;
  summary: string;
  /** the value as the reader should see it: JSON pretty-printed, text as it is */
  value: string;
}

/** One schema, its `$ref`s followed, bounded in depth and in size. */
export interface SchemaView {
  /** the component a `$ref` named it by (`Pet`), or null */
  name: string | null;
  /** what it is in a few words: `string (date-time)`, `array of Pet`, `integer | null`, `object` */
  type: string;
  description: string;
  /** the named schema is one of its own ancestors here: it is shown above, not again */
  circular: boolean;
  /** the page's bounds stopped the display here */
  cut: boolean;
  /** notes in a few words each: `nullable`, `read only`, `≥ 1`, `pattern: ^a`, `default: 5` */
  rules: string[];
  /** the allowed values, as text */
  enum: string[];
  properties: PropertyView[];
  /** the schema of further properties (`additionalProperties`), or null */
  additional: SchemaView | null;
  items: SchemaView | null;
  compositions: CompositionView[];
}

export interface PropertyView {
  name: string;
  required: boolean;
  schema: SchemaView;
}

export interface CompositionView {
  kind: 'oneOf' | 'anyOf' | 'allOf' | 'not';
  schemas: SchemaView[];
}
