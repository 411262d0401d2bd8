import { markdocToDarkdown, type MarkdocConversion } from '../../content/markdoc-to-darkdown.ts';
import type { Folder } from './import.index.ts';
import type { ImportWarning, LayoutFile, LayoutSource } from './import.plan.ts';

/*
 * The bodies of the platform's Git format as Darkdown (0025-platform-git-format.md): links to page
 * files become page links, `{% synced %}` takes the block's contents from `_synced-blocks/`, and an
 * image the archive holds is written into the page as a `data:` URL, Quire having no store of files.
 */

/** One image's bytes at most: a larger one keeps its link as written, with a warning. */
export const MAX_INLINE_IMAGE_BYTES = 256 * 1024;
/** What becomes of files beside the pages: Quire stores no files, a page holds its images. */
export const ASSETS_NOTE =
  `images that pages show are held in those pages as data: URLs (at most ${MAX_INLINE_IMAGE_BYTES / 1024} KiB each); ` +
  'Quire stores no other file: links to them were kept as written.';
/** What a page holds of images at most (a page holds 4,000,000 characters). */
const PAGE_IMAGE_CHARS = 2_000_000;

export const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** The media type of an image file by its name, or undefined for another kind of file. */
export function imageType(path: string): string | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : IMAGE_TYPES[ext];
}

/**
 * A relative address written in the file at `from` (`../assets/a.png#x`) as the path of a file of the
 * archive (`assets/a.png`); undefined for an absolute or external one, or one leading above the root.
 */
export function archivePath(from: string, href: string): string | undefined {
  if (href.startsWith('/') || href.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  const path = href.replace(/[?#].*$/s, '');
  const segments = from.split('/').slice(0, -1);
  for (const part of safeDecode(path).split('/')) {
    if (part === '..') {
      if (segments.pop() === undefined) return undefined;
    } else if (part !== '.' && part !== '') segments.push(part);
  }
  return segments.join('/');
}

/**
 * A relative link to another page's file written in the file at `from` (`../setup.md#anchor`) as
 * the Darkdown address of that page (`/section/setup#anchor`); undefined for anything else
 * (absolute, external, to no page of the archive), which stays as written.
 */
export function pageLinkResolver(
  from: string,
  addresses: ReadonlyMap<string, string>,
): (href: string) => string | undefined {
  return (href) => {
    const hash = href.indexOf('#');
    const path = archivePath(from, href);
    if (path === undefined || !path.toLowerCase().endsWith('.md')) return undefined;
    const target = addresses.get(path);
    return target === undefined ? undefined : `${target}${hash < 0 ? '' : href.slice(hash)}`;
  };
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export interface SyncedBlock<F extends LayoutFile> {
  file: F;
  /** its Markdoc body, front matter gone */
  body: string;
}

/** Converts the page and post bodies of one Git-format archive (or `quire sync` folder). */
export class GitBodies<F extends LayoutFile> {
  /** image path → its `data:` URL, or null when it is too large to hold in a page */
  private readonly images = new Map<string, string | null>();
  private readonly blocks = new Map<string, MarkdocConversion | 'converting'>();
  private prepared: Promise<void> | undefined;

  constructor(
    private readonly source: LayoutSource<F>,
    /** each page file's address as Darkdown links name it (`/section/page`), by its path */
    readonly addresses: ReadonlyMap<string, string>,
    /** `_synced-blocks/<id>.md`, by id */
    private readonly syncedBlocks: ReadonlyMap<string, SyncedBlock<F>>,
    /** every image file of the archive, by path */
    private readonly imageFiles: ReadonlyMap<string, F>,
  ) {}

  /**
   * A body as Darkdown. Converted once; when it shows images of the archive not read yet, they are
   * read and it is converted again (the conversion itself is synchronous).
   */
  async convert(from: string, body: string): Promise<MarkdocConversion> {
    this.prepared ??= this.prepareBlocks();
    await this.prepared;
    const wanted = new Set<string>();
    const first = this.run(from, body, wanted);
    if (wanted.size === 0) return first;
    await this.readImages(wanted);
    return this.run(from, body, undefined);
  }

  /** The images every synced block shows, read before any block is converted for a page. */
  private async prepareBlocks(): Promise<void> {
    const wanted = new Set<string>();
    for (const block of this.syncedBlocks.values()) this.run(block.file.path, block.body, wanted, false);
    await this.readImages(wanted);
  }

  /**
   * One conversion. With `wanted`, images of the archive are only collected there (a first pass);
   * without, each one read is written in as a `data:` URL while the page's budget lasts.
   */
  private run(from: string, body: string, wanted: Set<string> | undefined, blocks = true): MarkdocConversion {
    let budget = PAGE_IMAGE_CHARS;
    const notes = new Map<string, number>();
    const note = (message: string) => notes.set(message, (notes.get(message) ?? 0) + 1);
    const conversion = markdocToDarkdown(body, {
      resolveLink: pageLinkResolver(from, this.addresses),
      resolveImage: (src) => {
        const path = archivePath(from, src);
        if (path === undefined || !this.imageFiles.has(path)) return undefined;
        if (wanted !== undefined) {
          wanted.add(path);
          return undefined;
        }
        const data = this.images.get(path);
        if (data === null || data === undefined) {
          note(
            `An image larger than ${MAX_INLINE_IMAGE_BYTES / 1024} KiB is not held in the page: its link was kept as written`,
          );
          return undefined;
        }
        if (data.length > budget) {
          note(
            `The page's images pass ${PAGE_IMAGE_CHARS} characters: the others' links were kept as written`,
          );
          return undefined;
        }
        budget -= data.length;
        return data;
      },
      syncedBlock: (id) => (blocks ? this.block(id) : { body: '', unconverted: new Map() }),
    });
    for (const [message, n] of notes)
      conversion.unconverted.set(message, (conversion.unconverted.get(message) ?? 0) + n);
    return conversion;
  }

  /** A synced block converted once, wherever it is used; a block that uses itself stops there. */
  private block(id: string): MarkdocConversion | undefined {
    const done = this.blocks.get(id);
    if (done === 'converting')
      return {
        body: '',
        unconverted: new Map([[`The synced block '${id}' holds itself: it was left out there`, 1]]),
      };
    if (done !== undefined) return done;
    const block = this.syncedBlocks.get(id);
    if (block === undefined) return undefined;
    this.blocks.set(id, 'converting');
    const conversion = this.run(block.file.path, block.body, undefined);
    this.blocks.set(id, conversion);
    return conversion;
  }

  private async readImages(paths: ReadonlySet<string>): Promise<void> {
    for (const path of paths) {
      const file = this.imageFiles.get(path);
      if (file === undefined || this.images.has(path)) continue;
      // An archive's directory gives each file's size: one too large is never inflated.
      const tooLarge = file.size !== undefined && file.size > MAX_INLINE_IMAGE_BYTES;
      const bytes = tooLarge || this.source.read === undefined ? undefined : await this.source.read(file);
      this.images.set(
        path,
        bytes === undefined || bytes.length > MAX_INLINE_IMAGE_BYTES
          ? null
          : `data:${imageType(path) ?? 'image/png'};base64,${bytes.toString('base64')}`,
      );
    }
  }
}

/**
 * `_synced-blocks/<id>.md`: the file's name is the block's id, its body Markdoc under a front matter
 * (the block's title, which a page does not show). A block that cannot be read is warned about by
 * `read`, and the pages that use it are told it does not exist.
 */
export async function readSyncedBlocks<F extends LayoutFile>(
  folder: Folder<F>,
  read: (file: F) => Promise<string | null>,
  warnings: ImportWarning[],
): Promise<Map<string, SyncedBlock<F>>> {
  const blocks = new Map<string, SyncedBlock<F>>();
  for (const [name, file] of [...folder.files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.toLowerCase().endsWith('.md')) {
      warnings.push({ file: file.path, message: 'Not a synced block file (.md): it was ignored.' });
      continue;
    }
    const body = await read(file);
    if (body !== null) blocks.set(name.slice(0, -3), { file, body });
  }
  for (const [, sub] of folder.folders)
    warnings.push({ file: `${sub.path}/`, message: 'Synced blocks are one flat folder: it was ignored.' });
  return blocks;
}
