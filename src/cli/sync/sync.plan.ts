import { slugify } from '../../shared/slug.ts';
import type { LocalPage, LocalReference, LocalSection, LocalState } from './sync.local.ts';
import type {
  RemoteContent,
  RemoteDefinition,
  RemotePage,
  RemoteReference,
  RemoteSection,
  RemoteState,
} from './sync.remote.ts';

/** What a planned page write changes; the summary and the dry run name them. */
export type PageChange = 'content' | 'title' | 'slug' | 'listed';

/** A section as the plan knows it: the server's (with its id), or one the run creates. */
export interface SectionTarget {
  local: LocalSection;
  /** set when the section exists, or once the run has created it */
  id: number | undefined;
  /** the run creates it: every category it needs is known to be missing */
  created: boolean;
}

export type Step =
  | { kind: 'createSection'; target: SectionTarget }
  | { kind: 'updateSection'; target: SectionTarget; changes: Array<'title' | 'published'> }
  | { kind: 'createCategory'; target: SectionTarget; title: string }
  | { kind: 'createPage'; target: SectionTarget; page: LocalPage }
  | {
      kind: 'updatePage';
      target: SectionTarget;
      page: LocalPage;
      id: number;
      changes: PageChange[];
      renamedFrom?: string;
    }
  | { kind: 'publishPage'; target: SectionTarget; page: LocalPage; id: number | undefined }
  | { kind: 'deletePage'; section: string; page: RemotePage }
  | { kind: 'uploadReference'; reference: LocalReference; existing: number | undefined }
  | { kind: 'publishReference'; reference: LocalReference; id: number };

export interface Plan {
  steps: Step[];
  unchanged: { sections: number; pages: number; references: number };
  /** pages on the server that DIR does not hold, left alone without --prune */
  notInDir: number;
}

export interface PlanOptions {
  publish: boolean;
  prune: boolean;
}

/** The server's side of the comparison: its structure, and the contents the planner asked for. */
export interface RemoteView {
  state: RemoteState;
  contents: Map<number, RemoteContent>;
  definitions: Map<number, RemoteDefinition | null>;
}

/** Sections of DIR matched to the server's: by slug, else by the folder's name as a slug, else by title. */
export function matchSections(
  local: LocalState,
  remote: RemoteState,
): Map<LocalSection, RemoteSection | undefined> {
  const matches = new Map<LocalSection, RemoteSection | undefined>();
  const taken = new Set<RemoteSection>();
  const rules: Array<(l: LocalSection, r: RemoteSection) => boolean> = [
    (l, r) => r.slug === l.slug,
    // The folder is what stays when settings.json gives the section a new title (and so a new slug).
    (l, r) => r.slug === slugify(l.folder),
    (l, r) => r.title.toLowerCase() === l.title.toLowerCase(),
  ];
  for (const rule of rules) {
    for (const section of local.sections) {
      if (matches.get(section)) continue;
      const match = remote.sections.find((r) => !taken.has(r) && rule(section, r));
      if (match) taken.add(match);
      matches.set(section, match);
    }
  }
  return matches;
}

/**
 * Pages whose contents the plan needs: those matched by slug, and, in a section where some local page
 * has no match, the server's unmatched pages (a page renamed keeps its body, see renameCandidates).
 */
export function pagesToRead(local: LocalState, remote: RemoteState): number[] {
  const ids: number[] = [];
  for (const [section, match] of matchSections(local, remote)) {
    if (!match) continue;
    const slugs = new Set(section.pages.map((p) => p.slug));
    const unmatchedLocal = section.pages.some((p) => !match.pages.some((r) => r.slug === p.slug));
    for (const page of match.pages) if (slugs.has(page.slug) || unmatchedLocal) ids.push(page.id);
  }
  return ids;
}

/** References of DIR that the server has (by title): their definitions are compared. */
export function referencesToRead(local: LocalState, remote: RemoteState): RemoteReference[] {
  return remote.references.filter((r) => local.references.some((l) => l.title === r.title));
}

/**
 * The writes that make the server hold what DIR holds, in the order they can be made: sections,
 * then each section's categories and pages in index order (parents before children), publishing,
 * references, and deletions last (so a failure earlier never leaves a page deleted and not replaced).
 */
export function planSync(local: LocalState, view: RemoteView, options: PlanOptions): Plan {
  const steps: Step[] = [];
  const deletes: Step[] = [];
  const unchanged = { sections: 0, pages: 0, references: 0 };
  let notInDir = 0;
  const matches = matchSections(local, view.state);
  for (const [section, remote] of matches) {
    const target: SectionTarget = { local: section, id: remote?.id, created: remote === undefined };
    if (!remote) {
      steps.push({ kind: 'createSection', target });
      // A new section is laid out in DIR's order: each category before the pages that stand in it.
      const announced = new Set<string>();
      for (const page of section.pages) {
        if (page.category !== undefined && !announced.has(page.category)) {
          for (const title of section.categories.slice(0, section.categories.indexOf(page.category) + 1)) {
            if (!announced.has(title)) steps.push({ kind: 'createCategory', target, title });
            announced.add(title);
          }
        }
        steps.push({ kind: 'createPage', target, page });
        if (options.publish) steps.push({ kind: 'publishPage', target, page, id: undefined });
      }
      for (const title of section.categories)
        if (!announced.has(title)) steps.push({ kind: 'createCategory', target, title });
      continue;
    }
    const sectionChanges: Array<'title' | 'published'> = [];
    // A folder name is only a default title: it does not rename a section titled on the server.
    if (section.given.title && remote.title !== section.title) sectionChanges.push('title');
    if (section.given.published && remote.published !== section.published) sectionChanges.push('published');
    if (sectionChanges.length > 0) steps.push({ kind: 'updateSection', target, changes: sectionChanges });
    else unchanged.sections++;

    const gone = planPages(target, remote, view.contents, options, steps, unchanged);
    for (const page of gone) {
      if (options.prune) deletes.push({ kind: 'deletePage', section: remote.slug, page });
      else notInDir++;
    }
  }
  // Sections DIR does not hold: their pages are gone from DIR too (the sections themselves stay).
  const matched = new Set(matches.values());
  for (const remote of view.state.sections) {
    if (matched.has(remote)) continue;
    for (const page of remote.pages) {
      if (options.prune) deletes.push({ kind: 'deletePage', section: remote.slug, page });
      else notInDir++;
    }
  }
  for (const reference of local.references) {
    const existing = view.state.references.find((r) => r.title === reference.title);
    const definition = existing ? view.definitions.get(existing.id) : undefined;
    if (!existing || !definition || !sameDefinition(reference, definition)) {
      steps.push({ kind: 'uploadReference', reference, existing: existing?.id });
    } else if (options.publish && definition.pendingDraft) {
      steps.push({ kind: 'publishReference', reference, id: existing.id });
    } else {
      unchanged.references++;
    }
  }
  return { steps: [...steps, ...deletes], unchanged, notInDir };
}

/**
 * The page writes of a section that exists, pushed onto `steps`; returns the server's pages that DIR
 * does not hold (renamed ones excepted).
 */
function planPages(
  target: SectionTarget,
  remote: RemoteSection,
  contents: Map<number, RemoteContent>,
  options: PlanOptions,
  steps: Step[],
  unchanged: Plan['unchanged'],
): RemotePage[] {
  const section = target.local;
  const bySlug = new Map(remote.pages.map((p) => [p.slug, p]));
  const unmatchedRemote = remote.pages.filter((p) => !section.pages.some((l) => l.slug === p.slug));
  const renames = renameCandidates(
    section.pages.filter((p) => !bySlug.has(p.slug)),
    unmatchedRemote,
    contents,
  );
  for (const page of section.pages) {
    const renamed = renames.get(page);
    const match = bySlug.get(page.slug) ?? renamed;
    if (!match) {
      steps.push({ kind: 'createPage', target, page });
      if (options.publish) steps.push({ kind: 'publishPage', target, page, id: undefined });
      continue;
    }
    const content = contents.get(match.id);
    const changes: PageChange[] = [];
    if (content?.hash !== page.hash) changes.push('content');
    if (match.title !== page.title) changes.push('title');
    if (match.slug !== page.slug) changes.push('slug');
    // Publishing lists a page: a page DIR wants unlisted is unlisted again after it is published.
    const willPublish = options.publish && (changes.includes('content') || content?.pendingDraft === true);
    const listedAfter = willPublish ? true : match.listed;
    if (page.listed !== undefined && page.listed !== listedAfter) changes.push('listed');
    const contentChanges = changes.filter((c) => c !== 'listed');
    if (contentChanges.length > 0) {
      steps.push({
        kind: 'updatePage',
        target,
        page,
        id: match.id,
        changes: contentChanges,
        ...(renamed ? { renamedFrom: renamed.slug } : {}),
      });
    }
    if (willPublish) steps.push({ kind: 'publishPage', target, page, id: match.id });
    if (changes.includes('listed'))
      steps.push({ kind: 'updatePage', target, page, id: match.id, changes: ['listed'] });
    if (changes.length === 0 && !willPublish) unchanged.pages++;
  }
  const renamedPages = new Set(renames.values());
  return unmatchedRemote.filter((page) => !renamedPages.has(page));
}

/**
 * A page whose file was renamed (a new title, so a new slug) still has its body: a local page with no
 * match whose contents equal those of exactly one unmatched page of the same section is that page,
 * renamed in place, which keeps its id, history and links. Anything less certain is a new page.
 */
function renameCandidates(
  locals: LocalPage[],
  remotes: RemotePage[],
  contents: Map<number, RemoteContent>,
): Map<LocalPage, RemotePage> {
  const renames = new Map<LocalPage, RemotePage>();
  for (const page of locals) {
    const sameBody = remotes.filter((r) => contents.get(r.id)?.hash === page.hash);
    const rivals = locals.filter((l) => l.hash === page.hash);
    if (sameBody.length === 1 && rivals.length === 1 && sameBody[0]) renames.set(page, sameBody[0]);
  }
  return renames;
}

/**
 * The stored definition is kept byte for byte: YAML comes back as the text uploaded, and is compared
 * as text; JSON comes back re-serialised, so it is compared as a value (key order included).
 */
function sameDefinition(local: LocalReference, remote: RemoteDefinition): boolean {
  const normalise = (text: string) => text.replace(/\r\n?/g, '\n').trimEnd();
  if (!remote.contentType.includes('json')) return normalise(local.text) === normalise(remote.text);
  try {
    return JSON.stringify(JSON.parse(remote.text)) === JSON.stringify(local.value);
  } catch {
    return false;
  }
}
