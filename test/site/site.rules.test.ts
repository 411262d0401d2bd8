import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LinearRegex } from '../../src/shared/linear-regex.ts';
import { parseRedirectRules, redirectTarget } from '../../src/shared/redirect-rules.ts';

/** What JavaScript's own engine captures when the pattern must match the whole text. */
const jsMatch = (pattern: string, text: string) => {
  const found = new RegExp(`^(?:${pattern})$`).exec(text);
  return found === null ? null : Array.from(found);
};

describe('the linear matcher of redirect patterns', () => {
  const PATTERNS = [
    '/old/(.*)',
    '/(.*?)/(.*)',
    '/a(b|c)*d',
    '/v1/(\\w+)\\.html',
    '/x{2,3}(y?)',
    '[^/]+/([a-c-]+)',
    '/(?:docs|guide)/(.+)',
    '^/$',
    '/(a|ab)(c|bcd)(d*)',
    '/(\\d+)-(\\D*)',
    '(/[a-z]+)+',
    '/a.b\\s?c',
    '(a*)*b',
  ];

  it('matches and captures what JavaScript does, on whole texts', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PATTERNS),
        fc.string({ unit: fc.constantFrom('/', 'a', 'b', 'c', 'd', 'x', 'y', '1', '-', '.', ' ', 'o', 'l') }),
        (pattern, text) => {
          expect(new LinearRegex(pattern).match(text)).toEqual(jsMatch(pattern, text));
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('takes linear time on the patterns that make a backtracking engine take forever', () => {
    const text = `${'a'.repeat(2_000)}!`;
    for (const pattern of ['(a+)+$', '(a|aa)*b', '(.*.*.*.*.*.*)*x', '(a*)*(a*)*(a*)*c']) {
      const budget = { steps: 10_000_000 };
      const started = performance.now();
      expect(new LinearRegex(pattern).match(text, budget)).toBeNull();
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(10_000_000 - budget.steps).toBeLessThan(200_000);
    }
  });

  it('stops when its budget of steps runs out', () => {
    const budget = { steps: 100 };
    expect(new LinearRegex('(.*)/(.*)').match(`/${'a/'.repeat(500)}`, budget)).toBeNull();
    expect(budget.steps).toBeLessThanOrEqual(0);
  });

  it('keeps matching once its marks have started over', () => {
    // An empty loop: were a stale mark read as current, following it would never end.
    const regex = new LinearRegex('/(x*)*d');
    (regex as unknown as { generation: number }).generation = 0x7fff_ffff - 3;
    for (let i = 0; i < 5; i++) expect(regex.match('/xxd')?.[0]).toBe('/xxd');
  });

  it('refuses what it cannot run in linear time, saying what', () => {
    const refusals: Array<[string, RegExp]> = [
      ['(a)\\1', /\\1 at 4 is not supported/],
      ['(?=a)', /only \( \) and \(\?: \) groups/],
      ['(?<name>a)', /only \( \) and \(\?: \) groups/],
      ['a{2000}', /at most 1000/],
      ['(?:(?:a{100}){100}){10}', /too complex/],
      ['\\bword', /\\b at 1 is not supported/],
    ];
    for (const [pattern, message] of refusals) {
      expect(() => new LinearRegex(pattern)).toThrow(message);
    }
  });
});

describe('redirect rules files', () => {
  it('reads rules, comments and blank lines, and applies the first match with its groups', () => {
    const rules = parseRedirectRules(
      [
        '# moved in 2026',
        '',
        '/old/(.*) >> /v1/guides/$1',
        '  /guide/(\\w+)/(\\d+)  >>  /v1/$1/p$2  ',
        '/old/x >> /never',
      ].join('\n'),
    );
    expect(rules.map((r) => r.line)).toEqual([3, 4, 5]);
    expect(redirectTarget(rules, '/old/x')).toBe('/v1/guides/x');
    expect(redirectTarget(rules, '/guide/intro/7')).toBe('/v1/intro/p7');
    expect(redirectTarget(rules, '/guide/intro/x')).toBeNull();
  });

  it('refuses each bad rule with its line number', () => {
    const refusals: Array<[string, RegExp]> = [
      ['/a >> /b\n/c /d', /^line 2: no '>>'/],
      ['\n\n/(a >> /b', /^line 3: the pattern \/\(a is invalid: .*Unterminated group/],
      ['/a >> https://evil.com', /^line 1: the destination https:\/\/evil.com is refused: it must be a path/],
      ['/a >> //evil.com', /^line 1: .*must not start with '\/\/'/],
      ['/a >> /\\evil.com', /^line 1: .*backslash/],
      ['/(a) >> /$2', /^line 1: the destination names \$2, but the pattern has groups \$1 to \$1/],
      ['/a >> /$1', /^line 1: the destination names \$1, but the pattern has no groups/],
      [`/${'a'.repeat(500)} >> /b`, /^line 1: the pattern is over 500 characters/],
      ['(a)\\1 >> /b', /^line 1: the pattern \(a\)\\1 is not supported/],
      [' >> /b', /^line 1: no pattern/],
      [
        Array.from({ length: 1_001 }, (_, i) => `/p${i} >> /q`).join('\n'),
        /^line 1001: more than 1000 rules/,
      ],
    ];
    for (const [text, message] of refusals) {
      expect(() => parseRedirectRules(text), text.slice(0, 40)).toThrow(message);
    }
  });

  it('never leaves the site, even when a group brings slashes to the front', () => {
    const rules = parseRedirectRules('/go(.*) >> /$1\n/self >> /self');
    expect(redirectTarget(rules, '/go/evil.com')).toBeNull();
    expect(redirectTarget(rules, '/go\\evil.com')).toBeNull();
    expect(redirectTarget(rules, '/goto')).toBe('/to');
    expect(redirectTarget(rules, '/self')).toBeNull();
    expect(redirectTarget(rules, `/go${'x'.repeat(2_100)}`)).toBeNull();
  });
});
