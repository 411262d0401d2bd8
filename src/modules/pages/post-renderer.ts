import { LruCache } from '../../shared/lru-cache.ts';
import { sourceDigest, utf8Text, type Rendered } from '../../shared/serialised.ts';
import type { PageFormat } from './pages.schemas.ts';
import type { Source } from './pages.reads.repository.ts';
import { isLarge, type RenderEngine } from './render-engine.ts';

/** What a post's render needs: its id and last change (the cache's key), its stored contents. */
export interface PostSource {
  id: number;
  updated: string;
  content: Source;
}

/** Variables longer than this are keyed by their digest. */
const MAX_PLAIN_VARIABLES = 256;

/**
 * Changelog post contents in the format asked for, through the engine pages render with (its HTML
 * sanitiser, its Markdown safety, its worker threads for large sources).
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

  constructor(private readonly engine: RenderEngine) {}

  async content(post: PostSource, format: PageFormat, variables: string): Promise<Rendered> {
    const large = isLarge(post.content);
    if (format === 'darkdown' && !large) return utf8Text(post.content);
    const vars = variables.length > MAX_PLAIN_VARIABLES ? sourceDigest(variables) : variables;
    const key = `${format}:${post.id}:${post.updated}:${vars}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    let output: Rendered;
    if (format === 'darkdown') output = await this.engine.asIs(post.content, 'post');
    else {
      const ctx = { variables: this.engine.variablesOf(variables) };
      output = large
        ? await this.engine.inThread(post.content, format, ctx, 'post')
        : this.engine.here(utf8Text(post.content), format, ctx);
    }
    this.cache.set(key, output);
    return output;
  }
}
