import type { Static } from '@sinclair/typebox';
import { bool } from '../../db/executor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import { JsonBytes, type Rendered } from '../../shared/serialised.ts';
import type { ChangelogPostRow, ChangelogPostSource, ChangelogRow } from './changelogs.repository.ts';
import type { ChangelogPostSchema } from './changelogs.schemas.ts';

export interface Changelog {
  id: number;
  projectId: number;
  title: string;
  slug: string;
  created: string;
  updated: string;
}

export function presentChangelog(row: ChangelogRow): Changelog {
  return {
    id: row.id,
    projectId: row.project_id,
    title: row.title,
    slug: row.slug,
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
  };
}

/** A post of a changelog as the API presents it (N5/N6); `content` in the format asked for. */
export type ChangelogPost = Static<typeof ChangelogPostSchema>;

export function presentPost(row: ChangelogPostRow): ChangelogPost {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    published: bool(row.published),
    content: row.content,
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
  };
}

export interface PostList {
  /** each post's row, and its content in the format asked for */
  posts: Array<{ row: ChangelogPostSource; content: Rendered }>;
  total: number;
  cursor: string | null;
}

/**
 * The list's JSON answer: a string, or bytes when a content arrived as JSON bytes from a worker
 * thread, spliced in without being parsed or copied into a string.
 */
export function serialisePostList(list: PostList): string | Buffer {
  const head = ({ row }: PostList['posts'][number]) => ({
    id: row.id,
    title: row.title,
    slug: row.slug,
    published: bool(row.published),
  });
  const tail = ({ row }: PostList['posts'][number]) => ({
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
  });
  const end = { count: list.posts.length, total: list.total, cursor: list.cursor };
  if (!list.posts.some((post) => post.content instanceof JsonBytes)) {
    const posts = list.posts.map((post): ChangelogPost => ({
      ...head(post),
      content: post.content as string,
      ...tail(post),
    }));
    return JSON.stringify({ posts, ...end });
  }
  const parts: Uint8Array[] = [Buffer.from('{"posts":[')];
  list.posts.forEach((post, i) => {
    parts.push(Buffer.from(`${i === 0 ? '' : ','}${JSON.stringify(head(post)).slice(0, -1)},"content":`));
    parts.push(
      post.content instanceof JsonBytes ? post.content.bytes : Buffer.from(JSON.stringify(post.content)),
    );
    parts.push(Buffer.from(`,${JSON.stringify(tail(post)).slice(1)}`));
  });
  parts.push(Buffer.from(`],${JSON.stringify(end).slice(1)}`));
  return Buffer.concat(parts);
}
