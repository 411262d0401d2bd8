import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { ReferenceView } from '../../openapi/reference-view.types.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import { utf8Text } from '../../shared/serialised.ts';
import type { WorkerPool } from '../../workers/pool.ts';
import { unavailableIfTaskFails } from '../../workers/task-unavailable.ts';
import { referencesRepository as repo } from './references.repository.ts';

/** Views of published definitions kept for the reader site, weighed by their JSON's size. */
const VIEWS_KEPT = 200;
const VIEW_BYTES_KEPT = 32 * 1024 * 1024;

/** The views of published definitions the reader site's reference pages show (ReferencesService). */
export class ReferenceViews {
  private readonly views = new LruCache<{ view: ReferenceView | null; bytes: number }>(
    VIEWS_KEPT,
    VIEW_BYTES_KEPT,
    (kept) => 200 + kept.bytes,
  );

  constructor(
    private readonly reader: Kysely<Database>,
    private readonly workers: WorkerPool,
  ) {}

  /** ReferencesService.publishedView: built in a worker thread, kept by the stored text's hash. */
  async published(projectId: number, id: number): Promise<ReferenceView | null> {
    const row = await repo.findById(this.reader, projectId, id);
    if (!row || row.published !== 1) return null;
    const stored = await repo.definition(this.reader, id, false);
    if (!stored) return null;
    const key = `${createHash('sha256').update(stored.text).digest('base64')}:${stored.format}`;
    const kept = this.views.get(key);
    if (kept) return kept.view;
    const json = await unavailableIfTaskFails('The reference could not be shown', () =>
      this.workers.run({ kind: 'referenceView', definition: stored.text, format: stored.format }),
    );
    // The worker wrote it from a ReferenceView (src/workers/tasks.ts).
    const view = JSON.parse(utf8Text(json)) as ReferenceView | null;
    this.views.set(key, { view, bytes: json.byteLength });
    return view;
  }
}
