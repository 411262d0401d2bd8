import type { SiteContext } from '../site.context.ts';
import { Layout } from './layout.tsx';

export interface McpConnectProps {
  site: SiteContext;
  /** the server's absolute address */
  endpoint: string;
  /** the signed-in reader's bearer token on a private site; null on a public one (none needed) */
  token: string | null;
}

/**
 * `{site}/mcp/connect`: how to connect an MCP client to this site's server, with the configuration
 * to copy; on a private site, the signed-in reader's own token in it (never kept in any cache).
 */
export function McpConnectDocument({ site, endpoint, token }: McpConnectProps) {
  const server: Record<string, unknown> = { type: 'http', url: endpoint };
  if (token !== null) server.headers = { Authorization: `Bearer ${token}` };
  const configuration = JSON.stringify({ mcpServers: { [site.view.project.name]: server } }, null, 2);
  return (
    <Layout site={site} head={{ title: 'Connect an AI assistant', noindex: true }}>
      <div class="layout single">
        <main id="content" tabIndex={-1}>
          <h1>Connect an AI assistant</h1>
          <p>
            This documentation has an MCP server at <code>{endpoint}</code>: an assistant can search it, read
            its pages and look up its API operations.
          </p>
          {token === null ? (
            <p>It needs no sign-in. Add it to your MCP client's configuration:</p>
          ) : (
            <p>
              The token below lets a client read this documentation as you do, until you sign out or your
              access ends. Keep it to yourself. Add it to your MCP client's configuration:
            </p>
          )}
          {/* Focusable, so a keyboard can scroll a configuration wider than a phone. */}
          <pre tabIndex={0} role="region" aria-label="MCP client configuration">
            <code>{configuration}</code>
          </pre>
        </main>
      </div>
    </Layout>
  );
}
