import type { Executor } from '../../db/executor.ts';

export interface GitChangelog {
  id: number;
  title: string;
  slug: string;
}

export interface GitPost {
  changelog_id: number;
  title: string;
  slug: string;
  published: number;
  content: string;
  created: string;
}

/** The changelogs and posts of a project, for an export in the platform's Git layout. */
export const gitLayoutRepository = {
  changelogs(db: Executor, projectId: number): Promise<GitChangelog[]> {
    return db
      .selectFrom('changelogs')
      .select(['id', 'title', 'slug'])
      .where('project_id', '=', projectId)
      .orderBy('id')
      .execute();
  },

  /** Oldest first, as they were written. */
  posts(db: Executor, changelogId: number): Promise<GitPost[]> {
    return db
      .selectFrom('changelog_posts')
      .select(['changelog_id', 'title', 'slug', 'published', 'content', 'created'])
      .where('changelog_id', '=', changelogId)
      .orderBy('created')
      .orderBy('id')
      .execute();
  },
};
