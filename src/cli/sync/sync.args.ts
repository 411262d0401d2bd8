import fs from 'node:fs';
import { required, UsageError } from '../args.ts';
import type { OptionValues, ParsedInput } from '../spec.ts';

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
  /** upload definitions as drafts first; stop before any other write if one breaks its published one */
  failOnBreaking: boolean;
}

/** The server and the key: flags, or (better for a key: a flag shows in the process list) variables. */
export const SERVER_OPTIONS = {
  url: {
    type: 'string',
    value: 'URL',
    env: 'QUIRE_URL',
    required: true,
    description: "the server's address, with or without /api/v1",
  },
  key: {
    type: 'string',
    value: 'KEY',
    env: 'QUIRE_KEY',
    required: true,
    description: 'an API key of the project (set QUIRE_KEY rather than the flag: flags show in ps)',
  },
} as const;

export const SYNC_OPTIONS = {
  ...SERVER_OPTIONS,
  version: {
    type: 'string',
    value: 'SLUG',
    required: true,
    description: 'the version filled (it must exist)',
  },
  publish: { type: 'boolean', description: 'publish what is created or changed' },
  prune: { type: 'boolean', description: 'delete the pages the folder does not hold' },
  'dry-run': { type: 'boolean', description: 'print the plan; write nothing' },
  'fail-on-breaking': {
    type: 'boolean',
    description:
      'upload changed definitions as drafts first, and exit 1 before any other write when one breaks its published version',
  },
} as const;

/** The server's base and key from the command line or the environment. */
export function serverOptions(values: OptionValues<typeof SERVER_OPTIONS>): { apiBase: string; key: string } {
  const url = values.url;
  if (url === undefined || url === '') throw new UsageError('--url is required (or set QUIRE_URL)');
  const key = values.key;
  if (key === undefined || key === '') throw new UsageError('--key is required (or set QUIRE_KEY)');
  return { apiBase: apiBase(url), key };
}

/** Checks the command line before anything is read or sent: every problem here is a usage error. */
export function syncOptions(input: ParsedInput<typeof SYNC_OPTIONS>): SyncOptions {
  const { values, positionals } = input;
  const dir = positionals[0] ?? '';
  const server = serverOptions(values);
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
    ...server,
    versionSlug,
    publish: values.publish === true,
    prune: values.prune === true,
    dryRun: values['dry-run'] === true,
    failOnBreaking: values['fail-on-breaking'] === true,
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
