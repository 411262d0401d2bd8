import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { ChangeSubscriber } from '../changes/change-events.ts';
import type { SearchIndexer } from './search.indexer.ts';

/**
 * The search index follows every change in the change's own transaction, so what a publish makes
 * visible is found by the next request and what an unpublish hides is gone from it. The switch is
 * exhaustive: a new kind of change does not compile until it says what it does to the index.
 */
export function searchSubscriber(indexer: SearchIndexer): ChangeSubscriber {
  return async (trx, { event }, writes) => {
    // The indexer reads what the change wrote: the writes queued so far go first. A page's entries go
    // with the change's later writes (PostgreSQL: see SearchIndexer.page).
    const index = async (scope: (trx: Transaction<Database>) => Promise<void>) => {
      await writes.flush();
      await scope(trx);
    };
    switch (event.type) {
      case 'page.published':
        return index((t) => indexer.page(t, event.page.id, writes));
      case 'page.updated':
        // The entries carry the published contents, the title, the slug, and exist while the page is
        // listed: an update of the draft alone, or a move in the index, leaves them as they are.
        if (
          event.page.title !== event.before.title ||
          event.page.slug !== event.before.slug ||
          event.listed !== undefined
        ) {
          return index((t) => indexer.page(t, event.page.id, writes));
        }
        return;
      case 'version.updated':
        if (event.version.published !== event.before.published || event.version.slug !== event.before.slug) {
          return index((t) => indexer.version(t, event.version.id));
        }
        return;
      case 'version.deleted':
        return index((t) => indexer.version(t, event.version.id));
      case 'version.cloned':
        return index((t) => indexer.version(t, event.version.id));
      case 'page.deleted':
      case 'page.restored':
        await writes.flush();
        for (const id of event.pageIds) await indexer.page(trx, id);
        return;
      case 'documentation.updated':
        if (
          event.documentation.published !== event.before.published ||
          event.documentation.slug !== event.before.slug
        ) {
          return index((t) => indexer.version(t, event.versionId));
        }
        return;
      case 'documentation.deleted':
        return index((t) => indexer.version(t, event.versionId));
      case 'reference.uploaded':
        if (event.published) return index((t) => indexer.reference(t, event.reference.id));
        return;
      case 'reference.published':
        return index((t) => indexer.reference(t, event.reference.id));
      case 'changelog_post.created':
        // An unpublished post is for the changelog's editors only.
        if (event.post.published) return index((t) => indexer.changelogPost(t, event.post.id));
        return;
      case 'project.updated':
        // Entries hold the text as read, variables in place: those of pages and posts are derived
        // again (a definition's have none).
        if (event.changes.some((change) => change.field === 'variables')) {
          await index(async (t) => {
            await indexer.projectTexts(t, event.projectId);
          });
        }
        return;
      // Nothing readers can find changes: new pages are drafts, new sections and versions are empty,
      // and the rest are not content.
      case 'page.created':
      case 'documentation.created':
      case 'category.created':
      case 'version.created':
      case 'project.created':
      case 'api_key.created':
      case 'api_key.revoked':
      case 'user.created':
      case 'reader_access.granted':
      case 'reader_access.revoked':
      case 'changelog.created':
      case 'import.completed':
      case 'webhook.created':
      case 'webhook.deleted':
        return;
      default: {
        const unknown: never = event;
        throw new Error(`No search rule for ${(unknown as { type: string }).type}`);
      }
    }
  };
}
