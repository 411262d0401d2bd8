import fs from 'node:fs/promises';
import { UsageError } from './args.ts';

/** Past this a file is not read at all: no setting a command takes from a file is near it. */
const MAX_READ_BYTES = 4 * 1024 * 1024;

/**
 * A file a flag names, as UTF-8 text (a byte-order mark dropped); the service checks the text.
 * A missing or unreadable file, one that is not UTF-8, or one past a few MiB is a usage error.
 */
export async function readTextFile(file: string, flag: string): Promise<string> {
  let bytes: Buffer;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new UsageError(`--${flag} ${file} is not a file`);
    if (stat.size > MAX_READ_BYTES) {
      throw new UsageError(`--${flag} ${file} is ${stat.size} bytes, far over what the setting holds`);
    }
    bytes = await fs.readFile(file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new UsageError(`--${flag}: cannot read ${file} (${code})`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`--${flag} ${file} is not UTF-8 text`);
  }
}

/** The most a key file may hold: a PEM public key is a few KiB at most. */
const MAX_KEY_BYTES = 64 * 1024;

/** A key file a flag names, as its bytes (an HS256 secret need not be text); the service checks them. */
export async function readKeyFile(file: string, flag: string): Promise<Buffer> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new UsageError(`--${flag} ${file} is not a file`);
    if (stat.size > MAX_KEY_BYTES)
      throw new UsageError(`--${flag} ${file} is ${stat.size} bytes, too large for a key`);
    return await fs.readFile(file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new UsageError(`--${flag}: cannot read ${file} (${code})`);
  }
}
