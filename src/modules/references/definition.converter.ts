import { createHash } from 'node:crypto';
import type { DefinitionFormat } from '../../openapi/definition.parser.ts';
import type { WorkerPool } from '../../workers/pool.ts';

/** Converted text kept at most, in characters, by one converter. */
const CONVERSION_CACHE_CHARS = 32 * 1024 * 1024;

/**
 * Converting a large definition takes seconds (the yaml package reads about a megabyte a second), and
 * the read operation allows 600 calls a minute: conversions run in a worker thread and are kept, least
 * recently used out first, keyed by the hash of the stored text, so a new upload is never answered
 * with an old conversion.
 */
export class DefinitionConverter {
  private readonly cache = new Map<string, string>();
  private cachedChars = 0;

  constructor(
    private readonly workers: WorkerPool,
    private readonly maxChars = CONVERSION_CACHE_CHARS,
  ) {}

  async convert(text: string, from: DefinitionFormat, to: DefinitionFormat): Promise<string> {
    if (from === to) return text;
    const key = `${createHash('sha256').update(text).digest('base64')}:${to}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const { text: converted } = await this.workers.run({ kind: 'convertDefinition', text, from, to });
    if (converted.length <= this.maxChars) {
      this.cache.set(key, converted);
      this.cachedChars += converted.length;
      for (const [oldKey, old] of this.cache) {
        if (this.cachedChars <= this.maxChars) break;
        this.cache.delete(oldKey);
        this.cachedChars -= old.length;
      }
    }
    return converted;
  }
}
