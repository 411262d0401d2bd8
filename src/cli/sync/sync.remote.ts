import { normaliseContent, contentHash } from './sync.local.ts';
import { errorMessage, mapLimited, SyncHttpError, type SyncHttp } from './sync.http.ts';

export interface RemotePage {
  id: number;
  title: string;
  slug: string;
  listed: boolean;
}

export interface RemoteSection {
  id: number;
  title: string;
  slug: string;
  published: boolean;
  ordr: number;
  pages: RemotePage[];
}

export interface RemoteReference {
  id: number;
  title: string;
  published: boolean;
}

export interface RemoteState {
  versionId: number;
  sections: RemoteSection[];
  references: RemoteReference[];
}

/** A page's contents as stored: the newest body, and whether a draft waits to be published. */
export interface RemoteContent {
  hash: string;
  pendingDraft: boolean;
}

/** A reference's newest definition (the pending draft, else the published one). */
export interface RemoteDefinition {
  text: string;
  contentType: string;
  pendingDraft: boolean;
}

/**
 * Page reads are 600 a minute per key: a few at a time keeps a large folder under that for most of a
 * run, and a 429 past it is waited out by the client.
 */
const READ_CONCURRENCY = 4;

interface AllAnswer {
  page: Record<string, { title: string; slug: string; documentationId: number; listed: boolean }>;
  documentation: Record<
    string,
    { title: string; slug: string; versionId: number; published: boolean; ordr: number }
  >;
  reference: Record<string, { title: string; versionId: number; published: boolean }>;
  version: Record<string, { slug: string }>;
}

/**
 * The version's structure, from one `GET /all` (30 an hour per key: one per run). The version must
 * exist: sync fills a version, it does not create one.
 */
export async function readRemoteState(http: SyncHttp, versionSlug: string): Promise<RemoteState> {
  const answer = await http.get('/all');
  if (answer.status !== 200)
    throw new SyncHttpError(`GET /all answered ${answer.status}: ${errorMessage(answer)}`, answer.status);
  const all = JSON.parse(answer.text) as AllAnswer;
  const versionId = Object.entries(all.version).find(([, v]) => v.slug === versionSlug)?.[0];
  if (versionId === undefined) {
    throw new SyncHttpError(
      `the server has no version '${versionSlug}' that this key can see (sync fills a version; create it first)`,
      null,
    );
  }
  const sections = new Map<number, RemoteSection>();
  for (const [id, d] of Object.entries(all.documentation)) {
    if (String(d.versionId) !== versionId) continue;
    sections.set(Number(id), {
      id: Number(id),
      title: d.title,
      slug: d.slug,
      published: d.published,
      ordr: d.ordr,
      pages: [],
    });
  }
  for (const [id, p] of Object.entries(all.page)) {
    sections
      .get(p.documentationId)
      ?.pages.push({ id: Number(id), title: p.title, slug: p.slug, listed: p.listed });
  }
  const references = Object.entries(all.reference)
    .filter(([, r]) => String(r.versionId) === versionId)
    .map(([id, r]) => ({ id: Number(id), title: r.title, published: r.published }));
  return {
    versionId: Number(versionId),
    sections: [...sections.values()].sort((a, b) => a.ordr - b.ordr),
    references,
  };
}

/** The contents of these pages, a few reads at a time; a page gone meanwhile is left out. */
export async function readContents(
  http: SyncHttp,
  ids: number[],
  progress: (done: number, total: number) => void,
): Promise<Map<number, RemoteContent>> {
  const contents = new Map<number, RemoteContent>();
  let done = 0;
  await mapLimited(ids, READ_CONCURRENCY, async (id) => {
    const answer = await http.get(`/page/${id}?format=darkdown`);
    if (answer.status === 200) {
      const page = JSON.parse(answer.text) as {
        contentDraft: string | null;
        contentPublished: string | null;
      };
      const content = normaliseContent(page.contentDraft ?? page.contentPublished ?? '');
      contents.set(id, { hash: contentHash(content), pendingDraft: page.contentDraft !== null });
    }
    progress(++done, ids.length);
  });
  return contents;
}

/** The newest definition of a reference: its pending draft if it has one, else the published one. */
export async function readDefinition(
  http: SyncHttp,
  reference: RemoteReference,
): Promise<RemoteDefinition | null> {
  const draft = await http.get(`/reference/${reference.id}/definition?draft=true&format=auto`, '*/*');
  if (draft.status === 200) return { text: draft.text, contentType: draft.contentType, pendingDraft: true };
  if (!reference.published) return null;
  const published = await http.get(`/reference/${reference.id}/definition?format=auto`, '*/*');
  if (published.status !== 200) return null;
  return { text: published.text, contentType: published.contentType, pendingDraft: false };
}
