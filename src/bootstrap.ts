import type { Deps } from './deps.ts';
import { CLI_CONTEXT } from './modules/keys/actor.ts';

export interface BootstrapResult {
  projectId: number;
  key: string;
}

/**
 * First start on an empty database: a demo project (enterprise, invite protection), version `v1`,
 * section `Guides` and an all-permission key, so a newcomer can call the API at once.
 */
export async function bootstrapIfEmpty(deps: Deps): Promise<BootstrapResult | null> {
  if (!deps.config.bootstrap || (await deps.projects.count()) > 0) return null;
  const project = await deps.projects.create(
    { name: 'Demo', plan: 'enterprise', access: 'invite' },
    CLI_CONTEXT,
  );
  const version = await deps.versions.create(
    { projectId: project.id, name: 'v1', slug: 'v1', published: true },
    CLI_CONTEXT,
  );
  await deps.documentation.create({ versionId: version.id, title: 'Guides', published: true }, CLI_CONTEXT);
  const key = await deps.keys.create(
    {
      projectId: project.id,
      name: 'Bootstrap key',
      permissions: 'all',
      versions: 'all',
      ...(deps.config.bootstrapKey !== null ? { plaintext: deps.config.bootstrapKey } : {}),
    },
    CLI_CONTEXT,
  );
  return { projectId: project.id, key: key.key };
}

export function bootstrapBanner(result: BootstrapResult, baseUrl: string): string {
  return [
    '',
    `Created a demo project (id ${result.projectId}) with an API key that holds every permission.`,
    `The key is shown this once; keep it somewhere safe:`,
    '',
    `  ${result.key}`,
    '',
    'Try it:',
    '',
    `  curl -H 'X-Api-Key: ${result.key}' ${baseUrl}/api/v1/version`,
    '',
  ].join('\n');
}
