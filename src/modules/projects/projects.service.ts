import type { Kysely } from 'kysely';
import { wholeProject, type Actor, type Scope, type UseCaseContext } from '../../auth/actor.ts';
import type { Clock } from '../../clock.ts';
import { afterCommit } from '../../db/after-commit.ts';
import type { Database, ProjectsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import { InvalidFieldError, NotFoundError } from '../../errors.ts';
import type { ChangeRecorder, ProjectChange } from '../changes/change-events.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { assertNotBlank } from '../../shared/text.ts';
import { storedVariables } from './project-variables.ts';
import {
  checkedBasePath,
  checkedColor,
  checkedCss,
  checkedHost,
  checkedLogo,
  checkedRedirects,
} from './site-settings.ts';
import { presentProject, projectSettings, type ProjectRecord } from './projects.presenter.ts';
import { projectsRepository as repo, type ProjectOwned } from './projects.repository.ts';

export type Plan = ProjectsTable['plan'];
export type AccessMode = ProjectsTable['access'];
export const PLANS: readonly Plan[] = ['free', 'grow', 'enterprise'];
export const ACCESS_MODES: readonly AccessMode[] = ['public', 'invite'];
export type { ProjectOwned, ProjectRecord };

export interface ProjectInput {
  name: string;
  plan?: Plan;
  access?: AccessMode;
  basePath?: string | null;
  host?: string | null;
  /** what `%name%` and `%a.b%` in pages read: replaced whole; checked by storedVariables */
  variables?: unknown;
  /** the site's theme and redirect rules (site-settings.ts checks them); null or empty clears one */
  siteLogo?: string | null;
  siteColor?: string | null;
  siteCss?: string | null;
  redirects?: string | null;
}

export type SiteTheme = Partial<Pick<ProjectInput, 'siteColor' | 'siteLogo' | 'siteCss'>>;

/** The hosting and site settings given, checked and as stored; absent ones stay absent. */
function siteColumns(input: Partial<ProjectInput>) {
  return {
    ...(input.basePath !== undefined ? { base_path: checkedBasePath(input.basePath) } : {}),
    ...(input.host !== undefined ? { host: checkedHost(input.host) } : {}),
    ...(input.siteLogo !== undefined ? { site_logo: checkedLogo(input.siteLogo) } : {}),
    ...(input.siteColor !== undefined ? { site_color: checkedColor(input.siteColor) } : {}),
    ...(input.siteCss !== undefined ? { site_css: checkedCss(input.siteCss) } : {}),
    ...(input.redirects !== undefined ? { site_redirects: checkedRedirects(input.redirects) } : {}),
  };
}

/** What creating a project needs: who acts, from where; the new project is its own scope. */
export type ProjectCreateContext = Pick<UseCaseContext, 'actor' | 'ipAddress' | 'transaction'>;

const OWNER_LABEL = (owned: ProjectOwned): string => {
  if ('projectId' in owned) return `Project ${owned.projectId}`;
  if ('versionId' in owned) return `Version ${owned.versionId}`;
  if ('documentationId' in owned) return `Documentation ${owned.documentationId}`;
  if ('pageId' in owned) return `Page ${owned.pageId}`;
  return `API key ${owned.keyId}`;
};

export class ProjectsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changes: ChangeRecorder,
    /** called after a project's settings change, so cached keys pick up the new plan or access */
    private readonly afterUpdate: () => void = () => undefined,
  ) {}

  async create(ctx: ProjectCreateContext, input: ProjectInput): Promise<ProjectRecord> {
    assertNotBlank('name', input.name);
    const variables = input.variables === undefined ? '{}' : storedVariables('variables', input.variables);
    const site = siteColumns(input);
    const now = toStoredDate(this.clock.now());
    return inTransaction(this.db, ctx, async (tx) => {
      const row = await repo.insert(tx.transaction, {
        name: input.name,
        plan: input.plan ?? 'free',
        access: input.access ?? 'public',
        base_path: null,
        host: null,
        ...site,
        variables,
        created: now,
        updated: now,
      });
      const project = presentProject(row);
      await this.changes.record(tx, { type: 'project.created', projectId: row.id, project });
      return project;
    });
  }

  /** Changes the settings of the scope's project. */
  async update(ctx: UseCaseContext, input: Partial<ProjectInput>): Promise<ProjectRecord> {
    if (input.name !== undefined) assertNotBlank('name', input.name);
    const variables =
      input.variables === undefined ? undefined : storedVariables('variables', input.variables);
    const site = siteColumns(input);
    const id = ctx.scope.project.id;
    const updated = await inTransaction(this.db, ctx, async (tx) => {
      const before = await repo.findById(tx.transaction, id);
      if (!before) throw new NotFoundError(`Project ${id} not found.`);
      const row = await repo.update(tx.transaction, id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.plan !== undefined ? { plan: input.plan } : {}),
        ...(input.access !== undefined ? { access: input.access } : {}),
        ...site,
        ...(variables !== undefined ? { variables } : {}),
        updated: toStoredDate(this.clock.now()),
      });
      const candidates: ProjectChange[] = [
        { field: 'name', from: before.name, to: row.name },
        { field: 'plan', from: before.plan, to: row.plan },
        { field: 'access', from: before.access, to: row.access },
        { field: 'basePath', from: before.base_path, to: row.base_path },
        { field: 'host', from: before.host, to: row.host },
        { field: 'variables', from: before.variables, to: row.variables },
        { field: 'siteLogo', from: before.site_logo, to: row.site_logo },
        { field: 'siteColor', from: before.site_color, to: row.site_color },
        { field: 'siteCss', from: before.site_css, to: row.site_css },
        { field: 'redirects', from: before.site_redirects, to: row.site_redirects },
      ];
      const changes = candidates.filter((c) => c.from !== c.to);
      const project = presentProject(row);
      if (changes.length > 0) {
        await this.changes.record(tx, { type: 'project.updated', projectId: id, project, changes });
      }
      // Keys cached with the project's settings are read again once the new ones have committed
      // (under an Idempotency-Key, that is when the key's transaction does, not when this returns).
      afterCommit(tx.transaction, this.afterUpdate);
      return project;
    });
    return updated;
  }

  /**
   * Adds variables to the scope's project (an import's `developerhub.yaml`): a name it has already
   * takes the new value. Answers the names whose value changed that way.
   */
  async addVariables(ctx: UseCaseContext, variables: Record<string, unknown>): Promise<string[]> {
    return inTransaction(this.db, ctx, async (tx) => {
      const row = await repo.findById(tx.transaction, ctx.scope.project.id);
      const current = row === undefined ? {} : presentProject(row).variables;
      await this.update(tx, { variables: { ...current, ...variables } });
      return Object.keys(variables).filter(
        (k) => k in current && JSON.stringify(current[k]) !== JSON.stringify(variables[k]),
      );
    });
  }

  /**
   * Sets the theme an import brings (the platform's `_theme/`): each value is checked on its own, so
   * one refused leaves the others. Answers the fields whose earlier value changed, and the refusals.
   */
  async importTheme(
    ctx: UseCaseContext,
    theme: SiteTheme,
  ): Promise<{ replaced: Array<keyof SiteTheme>; refused: string[] }> {
    const accepted: SiteTheme = {};
    const refused: string[] = [];
    for (const field of ['siteColor', 'siteLogo', 'siteCss'] as const) {
      const value = theme[field];
      if (value === undefined) continue;
      try {
        siteColumns({ [field]: value });
        accepted[field] = value;
      } catch (error) {
        if (!(error instanceof InvalidFieldError)) throw error;
        refused.push(error.message);
      }
    }
    if (Object.keys(accepted).length === 0) return { replaced: [], refused };
    return inTransaction(this.db, ctx, async (tx) => {
      const row = await repo.findById(tx.transaction, ctx.scope.project.id);
      const before = row === undefined ? undefined : presentProject(row);
      const after = await this.update(tx, accepted);
      const replaced = (Object.keys(accepted) as Array<keyof SiteTheme>).filter(
        (k) => before?.[k] != null && before[k] !== after[k],
      );
      return { replaced, refused };
    });
  }

  async get(id: number): Promise<ProjectRecord> {
    const row = await repo.findById(this.db, id);
    if (!row) throw new NotFoundError(`Project ${id} not found.`);
    return presentProject(row);
  }

  /**
   * The whole-project scope of the project that owns something, for an actor that is not a key (the
   * CLI, a job): 404 when that something does not exist.
   */
  async scopeOf(owned: ProjectOwned): Promise<Scope> {
    const projectId = await repo.ownerOf(this.db, owned);
    const row = projectId === undefined ? undefined : await repo.findById(this.db, projectId);
    if (!row) throw new NotFoundError(`${OWNER_LABEL(owned)} not found.`);
    return wholeProject(projectSettings(row));
  }

  /** A context for an administrator's or a job's use case in the project that owns something. */
  async contextFor(actor: Actor, owned: ProjectOwned): Promise<UseCaseContext> {
    return { scope: await this.scopeOf(owned), actor, ipAddress: null };
  }

  /** Every project: what an administrator sees with `bin/quire project list`. */
  async list(): Promise<ProjectRecord[]> {
    return (await repo.list(this.db)).map(presentProject);
  }

  /** How many projects there are, in the caller's transaction when it gives one. */
  count(transaction?: Executor): Promise<number> {
    return repo.count(transaction ?? this.db);
  }
}
