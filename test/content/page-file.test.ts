import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ContentError,
  parsePageFile,
  writeIndexEntryFile,
  writePageFile,
  type PageFile,
} from '../../src/content/index.ts';

const EXAMPLE = `---
type: page
title: Getting Started
listed: true
slug: getting-started
---draft

Draft body…

---published

Published body…
`;

describe('page files', () => {
  it('reads the example of darkdown.md §5', () => {
    expect(parsePageFile(EXAMPLE)).toEqual({
      meta: { type: 'page', title: 'Getting Started', listed: true, slug: 'getting-started' },
      draft: 'Draft body…',
      published: 'Published body…',
    });
  });

  it('writes the example back exactly', () => {
    expect(writePageFile(parsePageFile(EXAMPLE))).toBe(EXAMPLE);
  });

  it('reads files with only a draft, only a published body, or neither', () => {
    expect(parsePageFile('---\ntitle: A\n---draft\n\nD\n')).toEqual({
      meta: { title: 'A' },
      draft: 'D',
      published: null,
    });
    expect(parsePageFile('---\ntitle: A\n---published\n\nP\n')).toEqual({
      meta: { title: 'A' },
      draft: null,
      published: 'P',
    });
    expect(parsePageFile('---\ntype: separator\n---\n')).toEqual({
      meta: { type: 'separator' },
      draft: null,
      published: null,
    });
  });

  it('keeps marker-like lines that are body content', () => {
    const file: PageFile = {
      meta: { title: 'T' },
      draft: 'a\n---\n---draft\nb',
      published: '---draft\n---published\nc',
    };
    expect(parsePageFile(writePageFile(file))).toEqual(file);
  });

  it('reads CRLF files', () => {
    expect(parsePageFile('---\r\ntitle: A\r\n---draft\r\n\r\nD\r\n\r\n---published\r\n\r\nP\r\n')).toEqual({
      meta: { title: 'A' },
      draft: 'D',
      published: 'P',
    });
  });

  it('throws a ContentError with a clear message for invalid front matter', () => {
    expect(() => parsePageFile('---\ntitle: [unclosed\n---draft\n\nx\n')).toThrow(ContentError);
    expect(() => parsePageFile('---\ntitle: [unclosed\n---draft\n\nx\n')).toThrow(/Invalid front matter/);
    expect(() => parsePageFile('---\n- a\n- b\n---\n')).toThrow(/expected a mapping/);
    expect(() => parsePageFile('---\na: 1\na: 2\n---\n')).toThrow(ContentError);
    expect(() => parsePageFile('no front matter')).toThrow(/must start with a front matter block/);
    expect(() => parsePageFile('---\ntitle: x\n')).toThrow(/never closed/);
    expect(() => parsePageFile('---\ntitle: x\n---\nbody\n')).toThrow(/---draft/);
  });

  it('refuses to write a draft that the reader would cut short', () => {
    expect(() => writePageFile({ meta: {}, draft: 'a\n---published\nb', published: 'p' })).toThrow(
      ContentError,
    );
  });

  it('writes index entry files as front matter only', () => {
    expect(writeIndexEntryFile({ type: 'category', title: 'Guides' })).toBe(
      '---\ntype: category\ntitle: Guides\n---\n',
    );
    expect(writeIndexEntryFile({ type: 'link', title: 'Site', url: 'https://x.test' })).toBe(
      '---\ntype: link\ntitle: Site\nurl: https://x.test\n---\n',
    );
    expect(parsePageFile(writeIndexEntryFile({ type: 'separator' }))).toEqual({
      meta: { type: 'separator' },
      draft: null,
      published: null,
    });
    expect(() => writeIndexEntryFile({ type: 'page' })).toThrow(ContentError);
  });

  it('round-trips any page file: parse(write(file)) equals file', () => {
    const scalar = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    );
    const value = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 3 }),
      fc.dictionary(fc.string({ minLength: 1 }), scalar),
    );
    const body = fc.oneof(
      fc.constant(null),
      fc.string(),
      fc
        .array(fc.constantFrom('line', '', '---', '---draft', '# H', '  x', '\r'), { maxLength: 6 })
        .map((l) => l.join('\n')),
    );
    const file = fc
      .record({ meta: fc.dictionary(fc.string({ minLength: 1 }), value), draft: body, published: body })
      .filter((f) => f.draft === null || !/^---published[ \t]*\r?$/m.test(f.draft));
    fc.assert(
      fc.property(file, (f) => {
        expect(parsePageFile(writePageFile(f))).toEqual(f);
      }),
      { numRuns: 1_000 },
    );
  });
});
