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
  /** a draft definition waits to be published */
  hasDraft: boolean;
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

/** `GET /structure`'s answer (src/modules/all/all.structure.ts). */
interface StructureAnswer {
  version: { id: number; slug: string };
  sections: Array<{ id: number; title: string; slug: string; published: boolean; ordr: number }>;
  pages: Array<{ id: number; documentationId: number; title: string; slug: string; listed: boolean }>;
  references: Array<{ id: number; title: string; published: boolean; hasDraft: boolean }>;
}

/**
 * The version's structure, from one `GET /structure` (600 a minute per key): `/all` would spend one
 * of the key's 30 an hour on every run, dry runs included. The version must exist: sync fills a
 * version, it does not create one.
 */
export async function readRemoteState(http: SyncHttp, versionSlug: string): Promise<RemoteState> {
  const answer = await http.get(`/structure?version_slug=${encodeURIComponent(versionSlug)}`);
  if (answer.status === 404) {
    throw new SyncHttpError(
      `the server has no version '${versionSlug}' that this key can see (sync fills a version; create it first)`,
      404,
    );
  }
  if (answer.status !== 200)
    throw new SyncHttpError(
      `GET /structure answered ${answer.status}: ${errorMessage(answer)}`,
      answer.status,
    );
  const structure = JSON.parse(answer.text) as StructureAnswer;
  const sections = new Map<number, RemoteSection>();
  for (const d of structure.sections) sections.set(d.id, { ...d, pages: [] });
  for (const p of structure.pages) {
    sections.get(p.documentationId)?.pages.push({ id: p.id, title: p.title, slug: p.slug, listed: p.listed });
  }
  return {
    versionId: structure.version.id,
    sections: [...sections.values()],
    references: structure.references,
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

/**
 * The newest definition of a reference: its pending draft if it has one, else the published one. The
 * structure says which exists, so no read is answered 404.
 */
export async function readDefinition(
  http: SyncHttp,
  reference: RemoteReference,
): Promise<RemoteDefinition | null> {
  if (!reference.hasDraft && !reference.published) return null;
  const query = reference.hasDraft ? 'draft=true&format=auto' : 'format=auto';
  const answer = await http.get(`/reference/${reference.id}/definition?${query}`, '*/*');
  // Gone or published meanwhile: compared as missing, so the file is uploaded again.
  if (answer.status !== 200) return null;
  return { text: answer.text, contentType: answer.contentType, pendingDraft: reference.hasDraft };
}
