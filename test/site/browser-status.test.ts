import { describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, chromiumStatus } from './browser-helpers.ts';

describe('whether the browser tests run', () => {
  const present = () => true;
  const absent = () => false;

  it('run wherever Chromium is', () => {
    expect(chromiumStatus({}, present)).toEqual({ state: 'present' });
    expect(chromiumStatus({ CI: 'true' }, present)).toEqual({ state: 'present' });
  });

  it('are skipped without Chromium, saying which file is missing', () => {
    for (const env of [{}, { CI: '' }, { CI: 'false' }, { REQUIRE_BROWSER: '0' }]) {
      const status = chromiumStatus(env, absent);
      expect(status.state, JSON.stringify(env)).toBe('missing');
      expect(status).toMatchObject({ message: expect.stringContaining(`${CHROMIUM_PATH} is missing`) });
    }
  });

  it('fail without Chromium in CI, or when REQUIRE_BROWSER=1 asks for it', () => {
    for (const env of [{ CI: 'true' }, { CI: '1' }, { REQUIRE_BROWSER: '1' }]) {
      const status = chromiumStatus(env, absent);
      expect(status.state, JSON.stringify(env)).toBe('required');
      expect(status).toMatchObject({ message: expect.stringContaining(`${CHROMIUM_PATH} is missing`) });
    }
  });
});
