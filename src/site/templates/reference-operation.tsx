import type {
  ExampleView,
  MediaView,
  OperationView,
  ParameterView,
  ResponseView,
} from '../../openapi/reference-view.types.ts';
import { Description, hasDetail, Schema, SchemaDetail, SchemaType } from './reference-schema.tsx';

/**
 * One operation of a reference: its element id is the fragment search gives it, so a hit's address
 * lands on it. Method and path, summary, description, parameters, request body, responses with
 * their schemas and examples, and a `curl` sample.
 */
export function Operation({ operation }: { operation: OperationView }) {
  const title = operation.summary !== '' ? operation.summary : `${operation.method} ${operation.path}`;
  return (
    <section class="operation" id={operation.fragment}>
      <h3>{title}</h3>
      <p class="endpoint">
        <span class={`method method-${operation.method.toLowerCase()}`}>{operation.method}</span>{' '}
        <code>{operation.path}</code>
        {operation.deprecated ? <span class="deprecated"> deprecated</span> : null}
      </p>
      {operation.otherTags.length > 0 ? (
        <p class="page-meta">Also under: {operation.otherTags.join(', ')}</p>
      ) : null}
      <Description html={operation.description} />
      {operation.parameters.length > 0 ? (
        <>
          <h4>Parameters</h4>
          <Parameters parameters={operation.parameters} label={`Parameters of ${title}`} />
        </>
      ) : null}
      {operation.requestBody !== null ? (
        <>
          <h4>
            Request body {operation.requestBody.required ? <span class="required">required</span> : null}
          </h4>
          <Description html={operation.requestBody.description} />
          {operation.requestBody.content.map((media) => (
            <Media key={media.type} media={media} />
          ))}
        </>
      ) : null}
      {operation.responses.length > 0 ? (
        <>
          <h4>Responses</h4>
          {operation.responses.map((response) => (
            <Response key={response.status} response={response} operation={title} />
          ))}
        </>
      ) : null}
      <h4>Example request</h4>
      <pre>
        <code class="language-shell">{operation.curl}</code>
      </pre>
    </section>
  );
}

/**
 * The parameters' table, in a region of its own that takes focus: wider than a phone's screen, it
 * scrolls sideways, and a keyboard scrolls it once it has focus.
 */
function Parameters({ parameters, label }: { parameters: ParameterView[]; label: string }) {
  return (
    <div class="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table class="parameters">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">In</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Description</th>
          </tr>
        </thead>
        <tbody>
          {parameters.map((parameter) => (
            <tr key={`${parameter.in} ${parameter.name}`}>
              <th scope="row">
                <code>{parameter.name}</code>
                {parameter.deprecated ? <span class="deprecated"> deprecated</span> : null}
              </th>
              <td>{parameter.in}</td>
              <td>{parameter.schema !== null ? <SchemaType schema={parameter.schema} /> : null}</td>
              <td>{parameter.required ? <span class="required">required</span> : 'optional'}</td>
              <td>
                <Description html={parameter.description} />
                {parameter.schema !== null && hasDetail(parameter.schema) ? (
                  <div class="schema">
                    <SchemaDetail schema={{ ...parameter.schema, description: '' }} />
                  </div>
                ) : null}
                <Examples examples={parameter.examples} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Response({ response, operation }: { response: ResponseView; operation: string }) {
  return (
    <div class="response">
      <h5>
        <code>{response.status}</code>
      </h5>
      <Description html={response.description} />
      {response.headers.length > 0 ? (
        <>
          <p>Headers:</p>
          <Parameters
            parameters={response.headers}
            label={`Headers of the ${response.status} response of ${operation}`}
          />
        </>
      ) : null}
      {response.content.map((media) => (
        <Media key={media.type} media={media} />
      ))}
    </div>
  );
}

function Media({ media }: { media: MediaView }) {
  return (
    <div class="media">
      <p class="media-type">
        Content type <code>{media.type}</code>
      </p>
      {media.schema !== null ? <Schema schema={media.schema} /> : null}
      <Examples examples={media.examples} />
    </div>
  );
}

function Examples({ examples }: { examples: ExampleView[] }) {
  return (
    <>
      {examples.map((example, i) => (
        <div class="example" key={i}>
          <p>
            Example{example.name !== null ? `: ${example.name}` : ''}
            {example.summary !== '' ? ` (${example.summary})` : ''}
          </p>
          <pre>
            <code>{example.value}</code>
          </pre>
        </div>
      ))}
    </>
  );
}
