import fs from 'node:fs';
import { parseOptions, required, UsageError } from '../args.ts';

export interface SyncOptions {
  /** the folder pushed, as given */
  dir: string;
  /** the API's base, ending in `/api/v1` */
  apiBase: string;
  key: string;
  versionSlug: string;
  publish: boolean;
  prune: boolean;
  dryRun: boolean;
}

const SPEC = {
  url: { type: 'string' },
  key: { type: 'string' },
  version: { type: 'string' },
  publish: { type: 'boolean' },
  prune: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
} as const;

/** Checks the command line before anything is read or sent: every problem here is a usage error. */
export function parseSyncArgs(args: string[]): SyncOptions {
  const { values, positionals } = parseOptions(args, SPEC, 1);
  const dir = positionals[0] ?? '';
  const url = required(values.url, 'url');
  const key = required(values.key, 'key');
  const versionSlug = required(values.version, 'version');
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir);
  } catch {
    stat = undefined;
  }
  if (stat?.isDirectory() !== true) throw new UsageError(`'${dir}' is not a directory`);
  return {
    dir,
    apiBase: apiBase(url),
    key,
    versionSlug,
    publish: values.publish === true,
    prune: values.prune === true,
    dryRun: values['dry-run'] === true,
  };
}

/**
 * The server's address, with or without the `/api/v1` prefix (people paste either), as the base every
 * path is appended to. Only http and https: a key must not be sent anywhere else.
 */
function apiBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url must be an http or https URL (got '${url}')`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--url must be an http or https URL (got '${url}')`);
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    throw new UsageError('--url must have no query, fragment or credentials');
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  const base = path.endsWith('/api/v1') ? path : `${path}/api/v1`;
  return `${parsed.origin}${base}`;
}
