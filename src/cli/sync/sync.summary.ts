import type { ImportWarning } from '../../modules/import/import.plan.ts';
import type { BreakingChange } from './sync.breaking.ts';
import type { HttpCounters } from './sync.http.ts';
import type { Plan, Step } from './sync.plan.ts';

/** One planned write as the dry run lists it and a failure names it. */
export interface StepDescription {
  action: 'create' | 'update' | 'publish' | 'delete' | 'upload';
  type: 'section' | 'category' | 'page' | 'reference';
  /** the section's slug */
  section?: string;
  slug?: string;
  title?: string;
  /** the file of DIR it comes from */
  file?: string;
  /** the server's id, when the thing exists already */
  id?: number;
  changes?: string[];
  /** the slug a renamed page had */
  from?: string;
}

export interface Failure extends StepDescription {
  message: string;
}

export interface Outcome {
  done: Step[];
  failures: Failure[];
  /** categories the run created: planned ones, and those found missing by a page's create */
  categoriesCreated: Array<{ section: string; title: string }>;
  /** the breaking changes the uploads' change reports named */
  breaking: BreakingChange[];
}

/** The one JSON object `quire sync` writes on standard output (docs/decisions/0015-sync.md). */
export interface SyncSummary {
  version: string;
  dryRun: boolean;
  ok: boolean;
  sections: { created: number; updated: number; unchanged: number };
  categories: { created: number };
  pages: {
    created: number;
    updated: number;
    renamed: number;
    published: number;
    deleted: number;
    unchanged: number;
    notInDir: number;
  };
  references: { uploaded: number; published: number; unchanged: number };
  /** the breaking changes of the definitions uploaded (extensions §8), each with its file */
  breaking: BreakingChange[];
  requests: HttpCounters;
  plan?: StepDescription[];
  failures: Failure[];
  warnings: ImportWarning[];
}

export function describeStep(step: Step): StepDescription {
  switch (step.kind) {
    case 'createSection':
      return {
        action: 'create',
        type: 'section',
        section: step.target.local.slug,
        title: step.target.local.title,
      };
    case 'updateSection':
      return {
        action: 'update',
        type: 'section',
        section: step.target.local.slug,
        id: step.target.id,
        changes: step.changes,
      };
    case 'createCategory':
      return { action: 'create', type: 'category', section: step.target.local.slug, title: step.title };
    case 'createPage':
      return {
        action: 'create',
        type: 'page',
        section: step.target.local.slug,
        slug: step.page.slug,
        title: step.page.title,
        file: step.page.file,
      };
    case 'updatePage':
      return {
        action: 'update',
        type: 'page',
        section: step.target.local.slug,
        slug: step.page.slug,
        file: step.page.file,
        id: step.id,
        changes: step.changes,
        ...(step.renamedFrom !== undefined ? { from: step.renamedFrom } : {}),
      };
    case 'publishPage':
      return {
        action: 'publish',
        type: 'page',
        section: step.target.local.slug,
        slug: step.page.slug,
        file: step.page.file,
        ...(step.id !== undefined ? { id: step.id } : {}),
      };
    case 'deletePage':
      return {
        action: 'delete',
        type: 'page',
        section: step.section,
        slug: step.page.slug,
        title: step.page.title,
        id: step.page.id,
      };
    case 'uploadReference':
      return {
        action: 'upload',
        type: 'reference',
        title: step.reference.title,
        file: step.reference.file,
        ...(step.existing !== undefined ? { id: step.existing } : {}),
      };
    case 'publishReference':
      return {
        action: 'publish',
        type: 'reference',
        title: step.reference.title,
        file: step.reference.file,
        id: step.id,
      };
  }
}

/**
 * Counts what was done (or, in a dry run, what would be): a failed step counts only as a failure. A
 * page updated for its listing alone counts as updated; a renamed page counts as renamed, not updated.
 */
export function summarise(input: {
  version: string;
  dryRun: boolean;
  /** --publish: references are uploaded published */
  publish: boolean;
  plan: Plan;
  steps: Step[];
  outcome: Outcome | undefined;
  requests: HttpCounters;
  warnings: ImportWarning[];
  /** --fail-on-breaking: the drafts uploaded before the plan's other writes, and what broke */
  checked?: { drafts: number; breaking: BreakingChange[]; stopped: boolean };
}): SyncSummary {
  const count = (test: (s: Step) => boolean) => input.steps.filter(test).length;
  const renamedPages = new Set<number>();
  const updatedPages = new Set<number>();
  for (const step of input.steps) {
    if (step.kind === 'updatePage')
      (step.renamedFrom !== undefined ? renamedPages : updatedPages).add(step.id);
  }
  for (const id of renamedPages) updatedPages.delete(id);
  const failures = input.outcome?.failures ?? [];
  const breaking = [...(input.checked?.breaking ?? []), ...(input.outcome?.breaking ?? [])];
  return {
    version: input.version,
    dryRun: input.dryRun,
    ok: failures.length === 0 && input.checked?.stopped !== true,
    sections: {
      created: count((s) => s.kind === 'createSection'),
      updated: count((s) => s.kind === 'updateSection'),
      unchanged: input.plan.unchanged.sections,
    },
    categories: {
      created: input.outcome
        ? input.outcome.categoriesCreated.length
        : count((s) => s.kind === 'createCategory'),
    },
    pages: {
      created: count((s) => s.kind === 'createPage'),
      updated: updatedPages.size,
      renamed: renamedPages.size,
      published: count((s) => s.kind === 'publishPage'),
      deleted: count((s) => s.kind === 'deletePage'),
      unchanged: input.plan.unchanged.pages,
      notInDir: input.plan.notInDir,
    },
    references: {
      uploaded: count((s) => s.kind === 'uploadReference') + (input.checked?.drafts ?? 0),
      // With --publish an upload publishes too: that reference is both uploaded and published.
      published: count(
        (s) => s.kind === 'publishReference' || (input.publish && s.kind === 'uploadReference'),
      ),
      unchanged: input.plan.unchanged.references,
    },
    breaking,
    requests: input.requests,
    ...(input.dryRun ? { plan: input.plan.steps.map(describeStep) } : {}),
    failures,
    warnings: input.warnings,
  };
}
