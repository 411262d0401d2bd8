import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A CommonJS package loaded the first time it is used rather than when its importer loads. An admin
 * command loads every service, and with them the drivers and clients only some of them use (the
 * PostgreSQL driver, Redis, the webhook HTTP client): each costs tens of milliseconds of start-up
 * that a command on SQLite never needs. Types come from an `import type` of the same package.
 */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(name) as T);
}
