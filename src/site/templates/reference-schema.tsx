import type { CompositionView, SchemaView } from '../../openapi/reference-view.types.ts';

/**
 * A description of the definition: its Markdown, rendered and sanitised in the worker thread that
 * built the view (content/description-html.ts, the allowlist every HTML of Quire goes through). The
 * reference page's only raw insertion.
 */
export function Description({ html }: { html: string }) {
  if (html === '') return null;
  return <div class="description" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Whether a schema has more to say than its type line: then it is shown in full below it. */
export const hasDetail = (schema: SchemaView): boolean =>
  schema.circular ||
  schema.cut ||
  schema.description !== '' ||
  schema.enum.length > 0 ||
  schema.rules.length > 0 ||
  schema.properties.length > 0 ||
  schema.compositions.length > 0 ||
  schema.additional !== null ||
  (schema.items !== null && hasDetail(schema.items));

/** `Pet object`, `array of string`, `Node (circular)`: what a schema is, on one line. */
export function SchemaType({ schema }: { schema: SchemaView }) {
  return (
    <span class="schema-type">
      {schema.name !== null && schema.name !== schema.type ? (
        <strong class="schema-name">{schema.name}</strong>
      ) : null}
      {schema.name !== null && schema.type !== '' && schema.name !== schema.type ? ' ' : null}
      {schema.type !== '' ? <code>{schema.type}</code> : null}
      {schema.circular ? (
        <span class="schema-note"> circular: {schema.name ?? 'this schema'} is shown above, not again</span>
      ) : null}
      {schema.cut ? <span class="schema-note"> (not shown in full: the reference is too large)</span> : null}
    </span>
  );
}

/** A schema with its parts: properties (required ones marked), items, further properties, compositions. */
export function Schema({ schema }: { schema: SchemaView }) {
  return (
    <div class="schema">
      <p class="schema-line">
        <SchemaType schema={schema} />
      </p>
      <SchemaDetail schema={schema} />
    </div>
  );
}

/** What a schema says below its type line. */
export function SchemaDetail({ schema }: { schema: SchemaView }) {
  return (
    <>
      <Description html={schema.description} />
      {schema.enum.length > 0 ? (
        <p class="schema-enum">
          Allowed values:{' '}
          {schema.enum.map((value, i) => (
            <span key={i}>
              {i > 0 ? ', ' : null}
              <code>{value}</code>
            </span>
          ))}
        </p>
      ) : null}
      {schema.rules.length > 0 ? <p class="schema-rules">{schema.rules.join(' · ')}</p> : null}
      {schema.properties.length > 0 ? (
        <ul class="schema-properties">
          {schema.properties.map((property) => (
            <li key={property.name}>
              <code class="property-name">{property.name}</code>{' '}
              {property.required ? (
                <>
                  <span class="required">required</span>{' '}
                </>
              ) : null}
              <SchemaType schema={property.schema} />
              {hasDetail(property.schema) ? (
                <div class="schema">
                  <SchemaDetail schema={property.schema} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {schema.items !== null && hasDetail(schema.items) ? (
        <div class="schema-part">
          <p>Items:</p>
          <Schema schema={schema.items} />
        </div>
      ) : null}
      {schema.additional !== null ? (
        <div class="schema-part">
          <p>Further properties:</p>
          <Schema schema={schema.additional} />
        </div>
      ) : null}
      {schema.compositions.map((composition) => (
        <Composition key={composition.kind} composition={composition} />
      ))}
    </>
  );
}

const COMPOSITION_TITLES: Record<CompositionView['kind'], string> = {
  oneOf: 'One of',
  anyOf: 'Any of',
  allOf: 'All of',
  not: 'Not',
};

function Composition({ composition }: { composition: CompositionView }) {
  return (
    <div class={`schema-part composition ${composition.kind}`}>
      <p>{COMPOSITION_TITLES[composition.kind]}:</p>
      <ol>
        {composition.schemas.map((schema, i) => (
          <li key={i}>
            <Schema schema={schema} />
          </li>
        ))}
      </ol>
    </div>
  );
}
