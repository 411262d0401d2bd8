import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

/**
 * A 32-byte key kept in a file beside a SQLite database (webhook secrets, reader sessions): written
 * whole under a temporary name, then linked to its place, which fails if the file exists; so two
 * processes starting at once agree on the one that won, and nobody reads a half written file. A file
 * that exists is read, and must hold 32 bytes in base64.
 */
export function readOrCreateKeyFile(path: string, what: string): Buffer {
  const key = randomBytes(32);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(temporary, `${key.toString('base64')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(temporary, path);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  const stored = Buffer.from(fs.readFileSync(path, 'utf8').trim(), 'base64');
  if (stored.length !== 32) throw new Error(`The ${what} key file ${path} does not hold 32 bytes in base64.`);
  return stored;
}

/** Where a server key comes from when its setting is not given (decisions 0014, 0030). */
export type KeySource =
  | { kind: 'configured'; key: Buffer }
  /** SQLite on a file: a key file beside it, made on first need and reused */
  | { kind: 'file'; path: string }
  /** in-memory SQLite: the data goes with the process, so may the key */
  | { kind: 'process' }
  /** PostgreSQL without a key: instances could never agree on one */
  | { kind: 'none' };

/** The key a source gives: `missing` is thrown where there is none (`none`). */
export function loadKey(source: KeySource, what: string, missing: () => Error): Buffer {
  switch (source.kind) {
    case 'configured':
      return source.key;
    case 'process':
      return randomBytes(32);
    case 'file':
      return readOrCreateKeyFile(source.path, what);
    case 'none':
      throw missing();
  }
}
