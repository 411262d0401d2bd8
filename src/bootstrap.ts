import { CLI_ACTOR, wholeProject, type UseCaseContext } from './auth/actor.ts';
import { lockForTransaction } from './db/advisory.ts';
import { inTransaction } from './db/transaction.ts';
import type { Deps } from './deps.ts';

export interface BootstrapResult {
  projectId: number;
  key: string;
}

/**
 * First start on an empty database: a demo project (enterprise, invite protection), version `v1`,
 * section `Guides` and an all-permission key, so a newcomer can call the API at once. One
 * transaction: a start that fails half-way leaves the database empty, and the next start tries again.
 * Of instances starting together on one database, one makes it.
 */
export async function bootstrapIfEmpty(deps: Deps): Promise<BootstrapResult | null> {
  if (!deps.config.bootstrap || (await deps.projects.count()) > 0) return null;
  const admin: Pick<UseCaseContext, 'actor' | 'ipAddress'> = { actor: CLI_ACTOR, ipAddress: null };
  return inTransaction(deps.database.db, admin, async (cli) => {
    // Two instances started together on one empty database: the second waits here for the first's
    // transaction, then finds its project and makes none.
    await lockForTransaction(cli.transaction, deps.database.dialect, 'quire:bootstrap');
    if ((await deps.projects.count(cli.transaction)) > 0) return null;
    const project = await deps.projects.create(cli, { name: 'Demo', plan: 'enterprise', access: 'invite' });
    const ctx = { ...cli, scope: wholeProject(project) };
    const version = await deps.versions.create(ctx, { name: 'v1', slug: 'v1', published: true });
    await deps.documentation.create(ctx, version.id, { title: 'Guides', published: true });
    const key = await deps.keys.create(ctx, {
      name: 'Bootstrap key',
      permissions: 'all',
      versions: 'all',
      ...(deps.config.bootstrapKey !== null ? { plaintext: deps.config.bootstrapKey } : {}),
    });
    return { projectId: project.id, key: key.key };
  });
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
