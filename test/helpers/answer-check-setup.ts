import { afterAll, afterEach } from 'vitest';
import { takeProblems } from './answer-check.ts';

// Registered first, so run last: after the test's own hooks have closed its apps.
afterEach(() => {
  const problems = takeProblems();
  if (problems !== null) throw new Error(problems);
});

// Answers sent outside a test (a file's beforeAll or afterAll) are reported with the file.
afterAll(() => {
  const problems = takeProblems();
  if (problems !== null) throw new Error(problems);
});
