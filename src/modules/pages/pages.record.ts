import type { TransactionContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import type { ChangeWrites } from '../../db/change-writes.ts';
import type { PageHistoryTable } from '../../db/schema.ts';
import { toStoredDate } from '../../shared/dates.ts';
import type { ChangeEvent, ChangeRecorder } from '../changes/change-events.ts';
import { packedContents } from './pages.history.ts';
import { historyRepository } from './pages.history.repository.ts';
import { presentPage, type Page } from './pages.presenter.ts';
import type { PageView } from './pages.reads.repository.ts';

/** What recording a page's change needs: where changes go, and the time. */
export interface Recording {
  changes: ChangeRecorder;
  clock: Clock;
}

/**
 * The page's history entry and its change event, in the change's transaction: the entry joins
 * `writes` (what the use case queued already), sent with the subscribers' writes. Its contents
 * are packed as the change from `before` where they can be (decision 0038).
 */
export async function recordChange(
  { changes, clock }: Recording,
  tx: TransactionContext,
  view: PageView,
  before: PageView | null,
  operation: PageHistoryTable['operation'],
  message: string,
  writes: ChangeWrites,
  event: (page: Page) => ChangeEvent,
): Promise<Page> {
  const contents = await packedContents(tx.transaction, view.id, view, before);
  writes.add(
    historyRepository.insertion(tx.transaction, {
      page_id: view.id,
      operation,
      message,
      title: view.title,
      slug: view.slug,
      contents,
      api_key_id: tx.actor.kind === 'key' ? tx.actor.keyId : null,
      user_id: tx.actor.kind === 'key' ? (tx.actor.user?.id ?? null) : null,
      created: toStoredDate(clock.now()),
    }),
  );
  const page = presentPage(view);
  await changes.record(tx, event(page), writes);
  return page;
}

/** What recordChange takes after its Recording: a change as the writer and the whole-page write give it. */
export type RecordArgs = Parameters<typeof recordChange> extends [Recording, ...infer Rest] ? Rest : never;
