import { describe, expect, it } from 'vitest';
import type { JobLog } from '../src/jobs/job.ts';
import { useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

/** A log that keeps what the jobs report. */
function recordingLog() {
  const lines: Array<{ level: 'info' | 'warn'; message: string; details: object }> = [];
  const log: JobLog = {
    info: (details, message) => lines.push({ level: 'info', message, details }),
    warn: (details, message) => lines.push({ level: 'warn', message, details }),
  };
  return { log, lines };
}

describe('the background jobs of a server', () => {
  it('purge on start, each reporting what it purged, and close with the app', async () => {
    const { log, lines } = recordingLog();
    for (const job of t.deps.jobs) job.start(log);
    const purged = [
      'deleted rows',
      'old link scans',
      'old rendered contents',
      'old webhook deliveries',
      'ended reader sessions and links',
      'sent mail',
    ];
    await expect
      .poll(() =>
        lines
          .filter((line) => line.level === 'info')
          .map((line) => line.message)
          .sort(),
      )
      .toEqual(purged.map((what) => `${what} purged`).sort());
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
    // The app's close (useTestApp) closes the started jobs, the timers of the purges included: a
    // timer left behind would purge again into a closed database.
  });
});
