import { renderContent } from '../../content/index.ts';
import { ServiceUnavailableError } from '../../errors.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import { JsonBytes, parseVariables, sourceDigest, utf8Text, type Rendered } from '../../shared/serialised.ts';
import { TaskFailedError, type WorkerPool } from '../../workers/pool.ts';
import { WORKER_RENDER_CHARS } from '../pages/pages.renderer.ts';
import type { PageFormat } from '../pages/pages.schemas.ts';
import type { ChangelogPostSource } from './changelogs.repository.ts';

/** Variables longer than this are keyed by their digest. */
const MAX_PLAIN_VARIABLES = 256;

/**
 * Post contents in the format asked for, through the engine pages go through (its HTML sanitiser,
 * its Markdown safety) and, from the pages' size on, in the worker threads pages render in, whose
 * output comes back as JSON bytes that the answer splices in as they are.
 *
 * A post has no version, so an [auto$] link in it names no page: it shows its slug, as a link to a
 * missing page does. The project's variables apply, as on pages.
 */
export class PostRenderer {
  /**
   * Outputs by post, its last change and the variables: a list renders up to 50 posts, and a feed's
   * readers read its newest posts again and again. Keying by the post rather than by a digest of
   * its text spares hashing megabytes on the event loop.
   */
  private readonly cache = new LruCache<Rendered>(2_000, 32 * 1024 * 1024, (output) => output.length);

  constructor(private readonly workers: WorkerPool) {}

  async content(post: ChangelogPostSource, format: PageFormat, variables: string): Promise<Rendered> {
    const large = post.content.length >= WORKER_RENDER_CHARS;
    if (format === 'darkdown' && !large) return utf8Text(post.content);
    const vars = variables.length > MAX_PLAIN_VARIABLES ? sourceDigest(variables) : variables;
    const key = `${format}:${post.id}:${post.updated}:${vars}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const output = large
      ? await this.inWorker(post.content, format, variables)
      : (renderContent(utf8Text(post.content), format, { variables: parseVariables(variables) }) ?? '');
    this.cache.set(key, output);
    return output;
  }

  /** A task whose thread ran out of time or memory, or died, is a 503: the post is fine. */
  private async inWorker(
    source: string | Uint8Array,
    format: PageFormat,
    variables: string,
  ): Promise<JsonBytes> {
    try {
      const ctx = format === 'darkdown' ? {} : { variables: parseVariables(variables) };
      return new JsonBytes(await this.workers.run({ kind: 'render', source, format, ctx }));
    } catch (error) {
      if (!(error instanceof TaskFailedError)) throw error;
      throw new ServiceUnavailableError(`The post could not be rendered: it ${error.message}.`, 5);
    }
  }
}
