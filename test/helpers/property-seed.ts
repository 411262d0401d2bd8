import fc from 'fast-check';

/**
 * Every property test's inputs come from one seed, so that a run, CI's too, is repeatable: a failure
 * names its seed and path, and the same command finds it again. PROPERTY_SEED picks another seed
 * (CI's other legs do, so that they try other inputs); `random` draws a new one each run, to look
 * for new failures. A property that names its own seed keeps it.
 */
const DEFAULT_SEED = 20261125;
const chosen = process.env.PROPERTY_SEED;
if (chosen !== 'random') {
  const seed = chosen === undefined || chosen === '' ? DEFAULT_SEED : Number(chosen);
  if (!Number.isInteger(seed))
    throw new Error(`PROPERTY_SEED must be an integer or 'random', not '${chosen}'`);
  fc.configureGlobal({ seed });
}
