import fc from 'fast-check';
import { stringify as stringifyYaml } from 'yaml';
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
  it('reads the example of darkdown.md §5: a part is a newline, the body and a newline', () => {
    expect(parsePageFile(EXAMPLE)).toEqual({
      meta: { type: 'page', title: 'Getting Started', listed: true, slug: 'getting-started' },
      draft: 'Draft body…\n',
      published: 'Published body…',
    });
  });

  it('reads the parts of format version 1 exports as they always read', () => {
    // That writer put a blank line of its own before `---published`.
    expect(parsePageFile(EXAMPLE, { legacyParts: true })).toMatchObject({
      draft: 'Draft body…',
      published: 'Published body…',
    });
    expect(
      parsePageFile('---\ntitle: A\n---draft\n\nD\n\n\n---published\n\nP\n', { legacyParts: true }),
    ).toMatchObject({
      draft: 'D\n',
    });
  });

  it('reads front matter as key: value lines, not YAML', () => {
    const meta = (lines: string) => parsePageFile(`---\n${lines}---\n`).meta;
    expect(meta('title: RAK2245 Pi Hat: LoRa Gateway\nslug: rak\n')).toEqual({
      title: 'RAK2245 Pi Hat: LoRa Gateway',
      slug: 'rak',
    });
    expect(meta("title: [a & *b # c 'd'\n")).toEqual({ title: "[a & *b # c 'd'" });
    // A line without a key continues the value before it; lower-case keys only, so `Part 2: x` is text.
    expect(meta('title: First line\nSecond: line\nlisted: false\n')).toEqual({
      title: 'First line\nSecond: line',
      listed: false,
    });
    expect(meta('title: \'Quoted: yes\'\nslug: "q"\n')).toEqual({ title: 'Quoted: yes', slug: 'q' });
    // What is no valid YAML quoted scalar just loses its quotes.
    expect(meta("title: 'It's'\n")).toEqual({ title: "It's" });
    expect(meta('title: "true"\nlisted: true\n')).toEqual({ title: 'true', listed: true });
  });

  it('reads what the earlier YAML writer wrote for awkward titles', () => {
    const titles = [
      'A: B',
      `It's "q"`,
      '# hash',
      ' lead',
      'trail ',
      'a\nb',
      'true',
      '"q"',
      "'s'",
      'a\tb',
      'é\u0001',
      'x #y',
    ];
    for (const title of titles) {
      const text = `---\n${stringifyYaml({ type: 'page', title }, { lineWidth: 0 })}---draft\n\nx\n`;
      expect(parsePageFile(text).meta).toEqual({ type: 'page', title });
    }
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
    expect(parsePageFile('---\r\ntitle: A\r\n---draft\r\n\r\nD\r\n---published\r\n\r\nP\r\n')).toEqual({
      meta: { title: 'A' },
      draft: 'D',
      published: 'P',
    });
    expect(
      parsePageFile('---\r\ntitle: A\r\n---draft\r\n\r\nD\r\n\r\n---published\r\n\r\nP\r\n'),
    ).toMatchObject({
      draft: 'D\r\n',
    });
  });

  it('throws a ContentError with a clear message for invalid front matter', () => {
    expect(() => parsePageFile('---\n- a\n- b\n---\n')).toThrow(ContentError);
    expect(() => parsePageFile('---\n- a\n- b\n---\n')).toThrow(
      /Invalid front matter: the line "- a" has no key/,
    );
    expect(() => parsePageFile('---\na: 1\na: 2\n---\n')).toThrow(/'a' appears twice/);
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
    const text = fc.oneof(
      fc.string(),
      fc.constantFrom('true', 'false', '', ' x ', '"q"', "'q'", '|-', '>', 'a: b', '# c', 'a\nb', 'a\r\nb'),
    );
    const value = fc.oneof(text, fc.boolean());
    const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    const body = fc.oneof(
      fc.constant(null),
      fc.string(),
      fc
        .array(fc.constantFrom('line', '', '---', '---draft', '# H', '  x', '\r'), { maxLength: 6 })
        .map((l) => l.join('\n')),
    );
    const file = fc
      .record({ meta: fc.dictionary(key, value), draft: body, published: body })
      .filter((f) => f.draft === null || !/^---published[ \t]*\r?$/m.test(f.draft));
    fc.assert(
      fc.property(file, (f) => {
        expect(parsePageFile(writePageFile(f))).toEqual(f);
      }),
      { numRuns: 1_000 },
    );
  });

  it('reads bodies ending with zero, one and two newlines back byte for byte, in both parts', () => {
    for (const end of ['', '\n', '\n\n']) {
      for (const file of [
        { meta: {}, draft: `D${end}`, published: `P${end}` },
        { meta: {}, draft: `D${end}`, published: null },
        { meta: {}, draft: null, published: `P${end}` },
        { meta: {}, draft: end, published: end },
      ]) {
        expect(parsePageFile(writePageFile(file))).toEqual(file);
      }
    }
  });
});
