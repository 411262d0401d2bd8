import type { ChangeEvent } from './change-events.ts';

/**
 * The versions whose data a change's event holds (its resource, titles, contents, the ids it names),
 * or null when it holds nothing of any version (a project's settings, its keys, readers, changelogs).
 * Whatever follows changes out of Quire (webhook deliveries, the audit log) shows an event to a key
 * limited to some versions only when every version named here is among them (decision 0019). The
 * switch is exhaustive: a new kind of change does not compile until it says which versions it shows.
 */
export function eventVersions(event: ChangeEvent): number[] | null {
  switch (event.type) {
    case 'version.created':
    case 'version.updated':
    case 'version.deleted':
      return [event.version.id];
    case 'version.cloned':
      // The audit entry names the source by its name and id.
      return [event.version.id, event.source.id];
    case 'documentation.created':
    case 'documentation.updated':
    case 'documentation.deleted':
    case 'category.created':
    case 'page.created':
    case 'page.updated':
    case 'page.published':
    case 'page.deleted':
    case 'page.restored':
    case 'reference.uploaded':
    case 'reference.published':
      return [event.versionId];
    case 'import.completed':
      return event.report.versions.map((version) => version.id);
    case 'api_key.created':
      // A key's version list names versions; a key of every version names none.
      return event.key.versions === 'all' ? null : [...event.key.versions];
    case 'project.created':
    case 'project.updated':
    case 'api_key.revoked':
    case 'user.created':
    case 'reader_access.granted':
    case 'reader_access.revoked':
    case 'changelog.created':
    case 'changelog_post.created':
    case 'webhook.created':
    case 'webhook.deleted':
      return null;
    default: {
      const unknown: never = event;
      throw new Error(`No version rule for ${(unknown as { type: string }).type}`);
    }
  }
}

/** Whether a version scope (null: every version) may see what names `versions` (null: none). */
export function withinVersions(
  scope: ReadonlySet<number> | null,
  versions: readonly number[] | null,
): boolean {
  return scope === null || versions === null || versions.every((id) => scope.has(id));
}
