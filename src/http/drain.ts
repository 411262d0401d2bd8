import type { Server } from 'node:http';
import net from 'node:net';

const DRAIN_SWEEP_MS = 100;

/**
 * Keeps accepting for `graceMs` (connections a client opened before the signal may still wait in the
 * kernel's queue, and closing the listener would reset them), answering with Connection: close;
 * then stops listening without touching open connections (http.Server#close would also close idle
 * ones at once), and closes idle connections until none is left.
 */
export async function drain(server: Server, graceMs: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, graceMs));
  net.Server.prototype.close.call(server);
  for (;;) {
    const open = await new Promise<number>((resolve) =>
      server.getConnections((error, count) => resolve(error ? 0 : count)),
    );
    if (open === 0) return;
    server.closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, DRAIN_SWEEP_MS));
  }
}
