import type { ScannedLink } from '../../content/link-scan.ts';
import { readAddress } from './link-target.ts';

export interface SectionEntry {
  slug: string;
  title: string;
  published: boolean;
}

/** Heading anchors of one content; null: the page has no such content. */
export type Anchors = ReadonlySet<string> | null;

export interface PageEntry {
  id: number;
  title: string;
  slug: string;
  listed: boolean;
  section: SectionEntry;
  /** filled in as the page's contents are scanned */
  anchors: { published: Anchors; draft: Anchors };
}

export interface ReferenceEntry {
  id: number;
  title: string;
  slug: string;
  /** published, with a published definition: what readers can open */
  published: boolean;
}

/** What a link names that the version does not have. */
export type Missing =
  { kind: 'version'; slug: string } | { kind: 'page'; doc: string; slug: string; docExists: boolean };

/** Where a link leads, as far as the version's index tells; fragments are judged later. */
export type Resolution =
  | { type: 'unchecked' }
  | { type: 'external'; fragment: string | null; problem: string | null }
  /** `target` null: no such page (`missing` says what was looked for); `self`: a heading of the same content */
  | ({ type: 'page'; fragment: string | null; self: boolean } & (
      { target: PageEntry; missing: null } | { target: null; missing: Missing }
    ))
  /** `slug`: the reference named, for when there is none */
  | { type: 'ref'; fragment: string | null; target: ReferenceEntry | null; slug: string };

export interface VersionFacts {
  slug: string;
  /** the project's default version: `latest` in a link names it */
  isDefault: boolean;
  /** slugs of the project's other live versions: links into them belong to their own reports */
  otherSlugs: ReadonlySet<string>;
}

/**
 * The references' namespace in reader paths: `/<version>/ref/<reference>` (search hits and the README
 * give that path), and `/ref/<reference>` without the version, as page links go without it.
 */
const REF = 'ref';
const UNCHECKED: Resolution = { type: 'unchecked' };

/** The pages, sections and references of one version, by the slugs links name them with. */
export class LinkIndex {
  /** by section slug, then page slug (no key made per link: a version has a hundred thousand links) */
  private readonly pages = new Map<string, Map<string, PageEntry>>();
  private readonly sections = new Set<string>();
  private readonly references = new Map<string, ReferenceEntry>();

  constructor(
    private readonly version: VersionFacts,
    sections: Iterable<SectionEntry>,
    pages: Iterable<PageEntry>,
    references: Iterable<ReferenceEntry>,
  ) {
    for (const section of sections) this.sections.add(section.slug);
    for (const page of pages) {
      let bySlug = this.pages.get(page.section.slug);
      if (bySlug === undefined) this.pages.set(page.section.slug, (bySlug = new Map<string, PageEntry>()));
      bySlug.set(page.slug, page);
    }
    for (const reference of references) this.references.set(reference.slug, reference);
  }

  resolve(link: ScannedLink, source: PageEntry): Resolution {
    const address = readAddress(link.href);
    if (link.kind === 'auto') {
      // The engine reads `[auto$](/doc/page#fragment)` only in that form, and as a page (its title).
      if (address.kind !== 'path' || address.segments.length !== 2) return UNCHECKED;
      return this.page(address.segments[0] ?? '', address.segments[1] ?? '', address.fragment);
    }
    switch (address.kind) {
      case 'unchecked':
        return UNCHECKED;
      case 'external':
        return { type: 'external', fragment: address.fragment, problem: address.problem };
      case 'fragment':
        return { type: 'page', fragment: address.fragment, target: source, missing: null, self: true };
      case 'path':
        return this.path(address.segments, address.fragment);
    }
  }

  private path(segments: readonly string[], fragment: string | null): Resolution {
    if (segments.length === 3) {
      const version = segments[0] ?? '';
      if (this.namesThisVersion(version)) {
        return this.pageOrReference(segments[1] ?? '', segments[2] ?? '', fragment);
      }
      // Another version's page is that version's report's business (and maybe outside the key's reach).
      if (this.namesAVersion(version)) return UNCHECKED;
      const missing: Missing = { kind: 'version', slug: version };
      return { type: 'page', fragment, target: null, missing, self: false };
    }
    if (segments.length !== 2) return UNCHECKED;
    const doc = segments[0] ?? '';
    // `/v2/guides`: a version's section, not a page.
    if (doc !== REF && !this.sections.has(doc) && this.namesAVersion(doc)) return UNCHECKED;
    return this.pageOrReference(doc, segments[1] ?? '', fragment);
  }

  /** A section slugged `ref` is possible: a page of it comes first, as its path is the page's own. */
  private pageOrReference(doc: string, slug: string, fragment: string | null): Resolution {
    if (doc !== REF || this.pages.get(doc)?.has(slug) === true) return this.page(doc, slug, fragment);
    return { type: 'ref', fragment, target: this.references.get(slug) ?? null, slug };
  }

  private page(doc: string, slug: string, fragment: string | null): Resolution {
    const target = this.pages.get(doc)?.get(slug);
    if (target !== undefined) return { type: 'page', fragment, target, missing: null, self: false };
    const missing: Missing = { kind: 'page', doc, slug, docExists: this.sections.has(doc) };
    return { type: 'page', fragment, target: null, missing, self: false };
  }

  private namesThisVersion(slug: string): boolean {
    return slug === this.version.slug || (slug === 'latest' && this.version.isDefault);
  }

  private namesAVersion(slug: string): boolean {
    return this.namesThisVersion(slug) || slug === 'latest' || this.version.otherSlugs.has(slug);
  }
}
