import { LinearRegex, RegexSyntaxError, type MatchBudget } from './linear-regex.ts';

/**
 * A project's own redirect rules (site.md §2, docs/decisions/0029-site-settings-and-redirects.md):
 * one rule a line, `pattern >> destination`; blank lines and lines starting with `#` are skipped.
 * A pattern matches the whole path below the site's root as the request sent it (percent-encoded,
 * no query); `$1` to `$9` in the destination are its groups; the first rule that matches decides.
 * A destination is a path of the same site, so no rule can send a reader elsewhere.
 */
export const REDIRECT_LIMITS = {
  /** the rules file, in bytes of UTF-8 */
  fileBytes: 256 * 1024,
  rules: 1_000,
  patternLength: 500,
  destinationLength: 2_048,
  /** longer paths match no rule (a request line is at most this long in any browser's practice) */
  pathLength: 2_048,
  /** the machine's steps every rule of one request may take together (linear-regex.ts) */
  stepsPerRequest: 1_000_000,
} as const;

export interface RedirectRule {
  line: number;
  pattern: LinearRegex;
  destination: string;
}

/** A rule that cannot be kept, with the line it is on. */
export class RedirectRuleError extends Error {
  constructor(
    readonly line: number | null,
    problem: string,
  ) {
    super(line === null ? problem : `line ${line}: ${problem}`);
  }
}

/**
 * Why `path` is not an address of the same site, or null when it is one: it must start with a single
 * `/` and hold no backslash (browsers read `/\host` as `//host`), no space and no control character.
 */
export function notSameSitePath(path: string): string | null {
  if (!path.startsWith('/')) return "it must be a path of this site, starting with '/'";
  if (path.startsWith('//')) return "it must not start with '//' (that names another host)";
  if (path.includes('\\')) return 'it must not contain a backslash (browsers read it as /)';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f-\u009f\u2028\u2029]/.test(path)) {
    return 'it must not contain spaces or control characters (percent-encode them)';
  }
  return null;
}

/** The rules of a file's text; throws RedirectRuleError naming the first line that is not a rule. */
export function parseRedirectRules(text: string): RedirectRule[] {
  if (Buffer.byteLength(text) > REDIRECT_LIMITS.fileBytes) {
    throw new RedirectRuleError(null, `the file is over ${REDIRECT_LIMITS.fileBytes / 1024} KiB`);
  }
  const rules: RedirectRule[] = [];
  const lines = text.split(/\r\n|\n|\r/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const content = raw.trim();
    if (content === '' || content.startsWith('#')) return;
    if (rules.length === REDIRECT_LIMITS.rules) {
      throw new RedirectRuleError(line, `more than ${REDIRECT_LIMITS.rules} rules`);
    }
    rules.push(parseRule(content, line));
  });
  return rules;
}

function parseRule(content: string, line: number): RedirectRule {
  // A destination holds no space, so the last `>>` is the separator even when a pattern holds one.
  const separator = content.lastIndexOf('>>');
  if (separator === -1) throw new RedirectRuleError(line, "no '>>' between the pattern and the destination");
  const source = content.slice(0, separator).trim();
  const destination = content.slice(separator + 2).trim();
  if (source === '') throw new RedirectRuleError(line, "no pattern before '>>'");
  if (destination === '') throw new RedirectRuleError(line, "no destination after '>>'");
  if (source.length > REDIRECT_LIMITS.patternLength) {
    throw new RedirectRuleError(line, `the pattern is over ${REDIRECT_LIMITS.patternLength} characters`);
  }
  if (destination.length > REDIRECT_LIMITS.destinationLength) {
    throw new RedirectRuleError(
      line,
      `the destination is over ${REDIRECT_LIMITS.destinationLength} characters`,
    );
  }
  try {
    // What JavaScript refuses is refused with its own words; what it accepts but the linear matcher
    // cannot run (backreferences, lookaround) is refused with the matcher's.
    new RegExp(source);
  } catch (error) {
    throw new RedirectRuleError(line, `the pattern ${source} is invalid: ${(error as Error).message}`);
  }
  let pattern: LinearRegex;
  try {
    pattern = new LinearRegex(source);
  } catch (error) {
    if (!(error instanceof RegexSyntaxError)) throw error;
    throw new RedirectRuleError(line, `the pattern ${source} is not supported: ${error.message}`);
  }
  const problem = notSameSitePath(destination);
  if (problem !== null) {
    throw new RedirectRuleError(line, `the destination ${destination} is refused: ${problem}`);
  }
  for (const reference of destination.matchAll(/\$(\d)/g)) {
    const group = Number(reference[1]);
    if (group === 0 || group > pattern.groups) {
      throw new RedirectRuleError(
        line,
        `the destination names $${group}, but the pattern has ${pattern.groups === 0 ? 'no groups' : `groups $1 to $${pattern.groups}`}`,
      );
    }
  }
  return { line, pattern, destination };
}

/**
 * Where the first rule that matches `path` sends it, or null when none does, when the result would
 * leave the site (a group may bring a `/` or a `\` to the front) or be `path` itself, or when the
 * matching took more than its budget of steps.
 */
export function redirectTarget(
  rules: readonly RedirectRule[],
  path: string,
  budget: MatchBudget = { steps: REDIRECT_LIMITS.stepsPerRequest },
): string | null {
  if (path.length > REDIRECT_LIMITS.pathLength) return null;
  for (const rule of rules) {
    const groups = rule.pattern.match(path, budget);
    if (budget.steps <= 0) return null;
    if (groups === null) continue;
    const target = rule.destination.replace(/\$(\d)/g, (_, n: string) => groups[Number(n)] ?? '');
    return notSameSitePath(target) === null && target !== path ? target : null;
  }
  return null;
}
