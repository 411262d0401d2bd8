import { breakingOf, uploaded } from './sync.breaking.ts';
import type { LocalPage } from './sync.local.ts';
import { errorMessage, SyncHttpError, type HttpAnswer, type SyncHttp, type WriteBody } from './sync.http.ts';
import type { Plan, SectionTarget, Step } from './sync.plan.ts';
import { describeStep, type Outcome } from './sync.summary.ts';

export interface ApplyContext {
  http: SyncHttp;
  versionId: number;
  publish: boolean;
  /** page ids by section id and slug: the server's pages, and those the run creates */
  pageIds: Map<number, Map<string, number>>;
  progress: (done: number, total: number) => void;
}

/** A step not attempted because one it depends on failed. */
class Skipped extends Error {}

const json = (value: unknown): WriteBody => ({
  text: JSON.stringify(value),
  contentType: 'application/json',
});
const message = (page: LocalPage) => `Synced from ${page.file}`.slice(0, 1000);

/**
 * Makes the plan's writes one after the other (positions in an index depend on their order). A
 * failed write is recorded and the run goes on: what it did and what it could not are both reported.
 */
export async function applyPlan(plan: Plan, ctx: ApplyContext): Promise<Outcome> {
  const outcome: Outcome = { done: [], failures: [], categoriesCreated: [], breaking: [] };
  let done = 0;
  for (const step of plan.steps) {
    try {
      await applyStep(step, ctx, outcome);
      outcome.done.push(step);
    } catch (error) {
      outcome.failures.push({
        ...describeStep(step),
        message: error instanceof Error ? error.message : String(error),
      });
    }
    ctx.progress(++done, plan.steps.length);
  }
  return outcome;
}

async function applyStep(step: Step, ctx: ApplyContext, outcome: Outcome): Promise<void> {
  const { http } = ctx;
  switch (step.kind) {
    case 'createSection': {
      const { title, slug, published } = step.target.local;
      const answer = await http.write(
        'POST',
        `/version/${ctx.versionId}/documentation`,
        json({ title, slug, published }),
      );
      step.target.id = idOf(answer);
      ctx.pageIds.set(step.target.id, new Map());
      return;
    }
    case 'updateSection': {
      const { title, published } = step.target.local;
      await http.write(
        'PUT',
        `/documentation/${sectionId(step.target)}`,
        json({
          ...(step.changes.includes('title') ? { title } : {}),
          ...(step.changes.includes('published') ? { published } : {}),
        }),
      );
      return;
    }
    case 'createCategory':
      await createCategory(ctx, step.target, step.title);
      outcome.categoriesCreated.push({ section: step.target.local.slug, title: step.title });
      return;
    case 'createPage':
      await createPage(ctx, step.target, step.page, outcome);
      return;
    case 'updatePage': {
      const { page } = step;
      const body: Record<string, unknown> = {};
      if (step.changes.includes('content')) body.content = page.content;
      // A title without a slug would make the server derive a new slug: the slug is always sent with it.
      if (step.changes.includes('title') || step.changes.includes('slug'))
        Object.assign(body, { title: page.title, slug: page.slug });
      if (step.changes.includes('listed')) body.listed = page.listed;
      if (step.changes.some((c) => c !== 'listed')) body.message = message(page);
      await http.write('PUT', `/page/${step.id}`, json(body));
      if (step.renamedFrom !== undefined) {
        const ids = ctx.pageIds.get(sectionId(step.target));
        ids?.delete(step.renamedFrom);
        ids?.set(page.slug, step.id);
      }
      return;
    }
    case 'publishPage': {
      const id = step.id ?? ctx.pageIds.get(sectionId(step.target))?.get(step.page.slug);
      if (id === undefined) throw new Skipped('not attempted: the page could not be created');
      await http.write('PUT', `/page/${id}/publish`);
      // Publishing lists the page; DIR may want a new one unlisted (the plan unlists existing ones).
      if (step.id === undefined && step.page.listed === false)
        await http.write('PUT', `/page/${id}`, json({ listed: false }));
      return;
    }
    case 'deletePage': {
      const answer = await http.tryWrite('DELETE', `/page/${step.page.id}`);
      // 404: already gone, deleted with a parent page deleted before it (deletes take sub-pages).
      if (answer.status !== 404 && (answer.status < 200 || answer.status >= 300))
        throw failed('DELETE', `/page/${step.page.id}`, answer);
      return;
    }
    case 'uploadReference': {
      const { reference } = step;
      const answer = await http.write('POST', `/version/${ctx.versionId}/reference?publish=${ctx.publish}`, {
        text: reference.text,
        contentType: reference.contentType,
      });
      outcome.breaking.push(...breakingOf(reference.file, uploaded(answer.text).changes));
      return;
    }
    case 'publishReference':
      await http.write('PUT', `/reference/${step.id}/publish`);
      return;
  }
}

/**
 * Creates a page where DIR puts it. Quire's API does not list a section's categories, so in a section
 * that already existed a missing category shows as the create's 400; it is then created and the page
 * created again, under a new Idempotency-Key (the first request wrote nothing).
 */
async function createPage(
  ctx: ApplyContext,
  target: SectionTarget,
  page: LocalPage,
  outcome: Outcome,
): Promise<void> {
  const { http } = ctx;
  const section = sectionId(target);
  const ids = ctx.pageIds.get(section) ?? new Map<string, number>();
  ctx.pageIds.set(section, ids);
  const parent = page.parentSlug === undefined ? undefined : ids.get(page.parentSlug);
  if (page.parentSlug !== undefined && parent === undefined) {
    throw new Skipped(`not attempted: its parent page '${page.parentSlug}' could not be created`);
  }
  const body = {
    title: page.title,
    content: page.content,
    slug: page.slug,
    ...(page.category !== undefined ? { categoryTitle: page.category } : {}),
    message: message(page),
  };
  let answer = await http.tryWrite('POST', `/documentation/${section}/page`, json(body));
  if (
    answer.status === 400 &&
    page.category !== undefined &&
    !target.created &&
    /categoryTitle/.test(answer.text)
  ) {
    await createCategory(ctx, target, page.category);
    outcome.categoriesCreated.push({ section: target.local.slug, title: page.category });
    answer = await http.tryWrite('POST', `/documentation/${section}/page`, json(body));
  }
  if (answer.status < 200 || answer.status >= 300)
    throw failed('POST', `/documentation/${section}/page`, answer);
  const id = idOf(answer);
  ids.set(page.slug, id);
  // The create takes no parent and leaves a page unlisted; publishing lists it anyway.
  const listed = page.listed === true && !ctx.publish ? { listed: true } : {};
  if (parent !== undefined || listed.listed === true) {
    await http.write(
      'PUT',
      `/page/${id}`,
      json({ ...(parent !== undefined ? { parentId: parent } : {}), ...listed }),
    );
  }
}

async function createCategory(ctx: ApplyContext, target: SectionTarget, title: string): Promise<void> {
  await ctx.http.write('POST', `/documentation/${sectionId(target)}/category`, json({ title }));
}

function sectionId(target: SectionTarget): number {
  if (target.id === undefined)
    throw new Skipped(`not attempted: the section '${target.local.slug}' could not be created`);
  return target.id;
}

function idOf(answer: HttpAnswer): number {
  const id = (JSON.parse(answer.text) as { id?: unknown }).id;
  if (typeof id !== 'number') throw new SyncHttpError('the server answered without an id', answer.status);
  return id;
}

function failed(method: string, path: string, answer: HttpAnswer): SyncHttpError {
  return new SyncHttpError(
    `${method} ${path} answered ${answer.status}: ${errorMessage(answer)}`,
    answer.status,
  );
}
