import { randomUUID } from 'node:crypto';

/**
 * Names for rows that a piece of work in this process marks as its own until it ends (`pid:id`),
 * so that another process, or this one later, can tell whether that work may still finish: it can
 * while its process lives and, in this process, while it runs (its name is held here).
 */
const RUNNING = new Set<string>();

export interface ProcessHolder {
  readonly name: string;
  /** the work has ended: its rows left behind are anyone's to remove */
  end(): void;
}

export function holdInThisProcess(): ProcessHolder {
  const id = randomUUID();
  RUNNING.add(id);
  return { name: `${process.pid}:${id}`, end: () => RUNNING.delete(id) };
}

/**
 * Whether the work a name was given to may still be running: in this process, while it is held;
 * another process's, while that process exists (a process of this pid that is not this one left it
 * when its names are not held here: a restarted container's node is pid 1 each time).
 */
export function holderAlive(name: string): boolean {
  const [pid, id = ''] = name.split(':');
  if (Number(pid) === process.pid) return RUNNING.has(id);
  if (!Number.isSafeInteger(Number(pid))) return false;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
