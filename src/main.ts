import { buildApp } from './app.ts';
import { bootstrapBanner, bootstrapIfEmpty } from './bootstrap.ts';
import { ConfigError, loadConfig } from './config.ts';
import { upgradeDatabase } from './upgrade.ts';
import { createDeps } from './deps.ts';

/** What a ConfigError stops: its message on stderr, exit code 1; other errors are thrown on. */
async function orExit<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** loadConfig → createDeps → migrate → bootstrap → buildApp → listen; SIGTERM/SIGINT drain, then exit. */
export async function serve(env: Readonly<Record<string, string | undefined>> = process.env): Promise<void> {
  const config = await orExit(() => loadConfig(env));
  // The dispatcher's failures (a database error during a claim) are logged once the app has a logger.
  let logError: (error: unknown) => void = () => undefined;
  let logCheckpointError: (error: Error) => void = () => undefined;
  const deps = createDeps(config, {
    workerMinThreads: 1,
    onWebhookError: (error) => logError(error),
    onCheckpointError: (error) => logCheckpointError(error),
  });
  await orExit(() => upgradeDatabase(deps.database));
  // A second for requests already on their way over idle keep-alive connections to be read.
  const app = await buildApp(deps, { drainGraceMs: 1_000 });
  const boot = await bootstrapIfEmpty(deps);
  logError = (error) => app.log.warn({ err: error }, 'webhook dispatch failed; it is tried again');
  logCheckpointError = (error) => app.log.warn({ err: error }, error.message);
  await app.listen({ host: config.host, port: config.port });
  // The outbox, the checkpoints, the warm-up and the purges (src/jobs/server-jobs.ts); deps.close()
  // closes them, the last started first.
  for (const job of deps.jobs) job.start(app.log);
  if (boot) {
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    process.stdout.write(`${bootstrapBanner(boot, `http://${shownHost}:${port}`)}\n`);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'draining: answering the requests received, then stopping');
    // Requests still running at the deadline are cut off, and the exit code says so.
    let forced = false;
    const deadline = setTimeout(() => {
      forced = true;
      app.log.warn(
        { timeoutMs: config.shutdownTimeoutMs },
        'SHUTDOWN_TIMEOUT reached: closing the connections still open',
      );
      app.server.closeAllConnections();
      setTimeout(() => process.exit(1), 2_000).unref();
    }, config.shutdownTimeoutMs);
    deadline.unref();
    app
      .close()
      .then(() => deps.close())
      .then(
        () => process.exit(forced ? 1 : 0),
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

const isEntry = import.meta.url === `file://${process.argv[1] ?? ''}`;
if (isEntry) {
  serve().catch((error: unknown) => {
    process.stderr.write(
      `Quire failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
