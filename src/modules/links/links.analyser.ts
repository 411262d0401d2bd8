import { setImmediate } from 'node:timers/promises';
import type { Anchors, LinkIndex, Missing, PageEntry, ReferenceEntry, Resolution } from './link-index.ts';
import type { ScannedLink } from '../../content/link-scan.ts';
import type { BrokenLink } from './links.schemas.ts';

/** Operation anchors of a reference's definitions, as search derives them; null: no such definition. */
export interface ReferenceAnchors {
  published: Anchors;
  draft: Anchors;
}

interface ScannedContent {
  page: PageEntry;
  isDraft: boolean;
  /** the content's own anchors, for `#heading` links */
  anchors: ReadonlySet<string>;
  links: Array<{ link: ScannedLink; resolution: Resolution }>;
}

type Issue = BrokenLink['issue'];
type Finding = { issue: Issue; message: string };

/** Contents whose findings are made between two turns of the event loop: a few milliseconds. */
const CONTENTS_PER_TURN = 1000;

/**
 * Which content of a target a fragment is checked against. A published link is read next to the
 * target's published content, so that one decides (the draft when the target was never published).
 * A draft link will be published together with whatever is pending, so the target's draft decides
 * when it has one.
 */
function anchorsFor(anchors: { published: Anchors; draft: Anchors }, isDraft: boolean): ReadonlySet<string> {
  const chosen = isDraft ? (anchors.draft ?? anchors.published) : (anchors.published ?? anchors.draft);
  return chosen ?? new Set();
}

function missingMessage(missing: Missing): string {
  if (missing.kind === 'version') return `No version '${missing.slug}' in this project.`;
  return missing.docExists
    ? `No page '${missing.slug}' in the documentation '${missing.doc}' of this version.`
    : `No documentation '${missing.doc}' in this version.`;
}

function pageFindings(resolution: Extract<Resolution, { type: 'page' }>, content: ScannedContent): Finding[] {
  if (resolution.target === null) {
    return [{ issue: 'broken_link', message: missingMessage(resolution.missing) }];
  }
  const { target, fragment } = resolution;
  const found: Finding[] = [];
  if (fragment !== null) {
    const anchors = resolution.self ? content.anchors : anchorsFor(target.anchors, content.isDraft);
    if (!anchors.has(fragment)) {
      const where = resolution.self ? 'This page' : `The page '${target.title}'`;
      found.push({ issue: 'broken_link', message: `${where} has no heading with the anchor '${fragment}'.` });
    }
  }
  if (resolution.self) return found;
  if (!target.section.published) {
    found.push({
      issue: 'linked_page_in_unpublished_documentation',
      message: `The page '${target.title}' is in the documentation '${target.section.title}', which is not published.`,
    });
  }
  if (!target.listed) {
    found.push({ issue: 'linked_page_unlisted', message: `The page '${target.title}' is not listed.` });
  }
  return found;
}

function referenceFindings(
  resolution: Extract<Resolution, { type: 'ref' }>,
  isDraft: boolean,
  operations: ReadonlyMap<number, ReferenceAnchors>,
): Finding[] {
  const { target, fragment } = resolution;
  if (target === null) {
    return [{ issue: 'broken_link', message: `No reference '${resolution.slug}' in this version.` }];
  }
  const found: Finding[] = [];
  const anchors = operations.get(target.id);
  if (fragment !== null && anchors !== undefined && !anchorsFor(anchors, isDraft).has(fragment)) {
    found.push({
      issue: 'broken_link',
      message: `The reference '${target.title}' has no operation with the anchor '${fragment}'.`,
    });
  }
  if (!target.published) {
    found.push({
      issue: 'linked_page_in_unpublished_reference',
      message: `The reference '${target.title}' has no published definition.`,
    });
  }
  return found;
}

/**
 * Collects the links of a version's contents as they are scanned (in any order), then reports them in
 * a fixed one: by page id, published content before draft, in reading order, and for one link its
 * broken link before its warnings.
 */
export class LinkAnalyser {
  private readonly contents: ScannedContent[] = [];

  constructor(private readonly index: LinkIndex) {}

  /** A scanned content; `anchors`: its heading anchors, as a set. */
  add(page: PageEntry, isDraft: boolean, links: readonly ScannedLink[], anchors: ReadonlySet<string>): void {
    const resolved: ScannedContent['links'] = [];
    for (const link of links) {
      const resolution = this.index.resolve(link, page);
      if (resolution.type !== 'unchecked') resolved.push({ link, resolution });
    }
    this.contents.push({ page, isDraft, anchors, links: resolved });
  }

  /** The references a link names with a fragment: only their definitions need reading. */
  referencesWithFragments(): ReferenceEntry[] {
    const found = new Map<number, ReferenceEntry>();
    for (const content of this.contents) {
      for (const { resolution } of content.links) {
        if (resolution.type === 'ref' && resolution.fragment !== null && resolution.target !== null) {
          found.set(resolution.target.id, resolution.target);
        }
      }
    }
    return [...found.values()];
  }

  /**
   * Every problem found, made a slice of contents per turn of the event loop (a large version has
   * tens of thousands). A reference missing from `operations` has its fragments taken on trust.
   */
  async report(operations: ReadonlyMap<number, ReferenceAnchors>): Promise<BrokenLink[]> {
    const sorted = [...this.contents].sort(
      (a, b) => a.page.id - b.page.id || Number(a.isDraft) - Number(b.isDraft),
    );
    const out: BrokenLink[] = [];
    for (const [i, content] of sorted.entries()) {
      if (i > 0 && i % CONTENTS_PER_TURN === 0) await setImmediate();
      for (const { link, resolution } of content.links) {
        out.push(...this.linkReport(content, link, resolution, operations));
      }
    }
    return out;
  }

  private linkReport(
    content: ScannedContent,
    link: ScannedLink,
    resolution: Resolution,
    operations: ReadonlyMap<number, ReferenceAnchors>,
  ): BrokenLink[] {
    let findings: Finding[];
    let target: { id: number; title: string; section: string } | null = null;
    switch (resolution.type) {
      case 'unchecked':
        return [];
      case 'external':
        if (resolution.problem === null) return [];
        findings = [
          { issue: 'broken_link', message: `The link '${link.href}' is malformed: ${resolution.problem}.` },
        ];
        break;
      case 'page':
        findings = pageFindings(resolution, content);
        if (resolution.target !== null) {
          const { id, title, section } = resolution.target;
          target = { id, title, section: section.slug };
        }
        break;
      case 'ref':
        findings = referenceFindings(resolution, content.isDraft, operations);
        if (resolution.target !== null) {
          target = { id: resolution.target.id, title: resolution.target.title, section: 'ref' };
        }
        break;
    }
    // An [auto$] link shows its page's title, or the slug when there is no such page (as rendered).
    const text =
      link.kind === 'auto' ? (target?.title ?? link.href.split('#')[0]?.split('/')[2] ?? '') : link.text;
    return findings.map(({ issue, message }) => ({
      severity: issue === 'broken_link' ? 'error' : 'warning',
      issue,
      message,
      isDraft: content.isDraft,
      page: { id: content.page.id, title: content.page.title },
      link: {
        text,
        href: link.href,
        type: resolution.type,
        fragment: resolution.fragment,
        targetId: target?.id ?? null,
      },
      target: target === null ? null : { title: target.title, section: target.section },
    }));
  }
}
