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
