import type { SiteTheme } from '../projects/projects.service.ts';
import type { ArchiveFile } from './import.archive.ts';

/*
 * What an import (or `quire sync`) reads from a layout of folders and files, before it writes anything:
 * the plan import.layout.ts makes and import.service.ts and the sync command carry out.
 */

export interface ImportWarning {
  file: string;
  message: string;
}

/** A file of a layout: an archive's entry, or (for `quire sync`) a file of a folder. */
export interface LayoutFile {
  /** relative, `/`-separated */
  path: string;
  /** its size in bytes, when known before it is read */
  size?: number;
}

/**
 * Where a layout is read from: an import's archive, or the folder `quire sync` pushes. `pageMeta`
 * reads a page file's front matter; without it, a page file must be an export's page envelope.
 */
export interface LayoutSource<F extends LayoutFile = ArchiveFile> {
  readonly files: readonly F[];
  readText(file: F): Promise<string>;
  /** a file's bytes (the Git format's images and logo); without it, none is read */
  read?(file: F): Promise<Buffer>;
  pageMeta?(file: F, text: string): Record<string, unknown>;
}

/** A page to create: its bodies are read again from the archive when it is written. */
export interface PlannedPage<F extends LayoutFile = ArchiveFile> {
  kind: 'page';
  file: F;
  title: string;
  slug: string | undefined;
  listed: boolean | undefined;
  children: Array<PlannedPage<F>>;
}

export interface PlannedCategory {
  kind: 'category';
  title: string;
}

export interface PlannedSection<F extends LayoutFile = ArchiveFile> {
  folder: string;
  title: string;
  slug: string | undefined;
  published: boolean;
  /** what settings.json says itself, rather than leaving to a default (`hidden` says `published`) */
  given: { title: boolean; published: boolean };
  /** categories and top-level pages in index order; a page after a category belongs to it */
  entries: Array<PlannedPage<F> | PlannedCategory>;
}

export interface PlannedReference<F extends LayoutFile = ArchiveFile> {
  file: F;
  /** published as uploaded (when the import keeps published bodies) */
  published: boolean;
  /** a draft pending over it */
  draft: F | undefined;
}

export interface PlannedVersion<F extends LayoutFile = ArchiveFile> {
  folder: string;
  name: string;
  slug: string | undefined;
  published: boolean;
  sections: Array<PlannedSection<F>>;
  references: Array<PlannedReference<F>>;
}

/** A changelog of the platform's Git format, and its posts in the order they were written. */
export interface PlannedChangelog<F extends LayoutFile = ArchiveFile> {
  folder: string;
  title: string;
  slug: string | undefined;
  posts: Array<{ file: F; title: string; slug: string | undefined; published: boolean }>;
}

/** A Markdoc body as Darkdown, from the path of the file it was written in. */
export interface BodyConverter {
  convert(from: string, body: string): Promise<{ body: string; unconverted: Map<string, number> }>;
}

/** What an archive in the platform's Git format adds to a plan: its pages are Markdoc. */
export interface MarkdocPlan<F extends LayoutFile = ArchiveFile> {
  /** converts its bodies: page links, synced blocks, images (import.git-bodies.ts) */
  bodies: BodyConverter;
  changelogs: Array<PlannedChangelog<F>>;
  /** `developerhub.yaml`'s variables, which `%name%` in pages reads */
  variables: Record<string, unknown> | undefined;
  /** the reader customisation that maps to the site's settings */
  theme: SiteTheme;
}

/** The Git format's plan, over files of an archive or of a folder. */
export interface GitPlan<F extends LayoutFile = ArchiveFile> {
  versions: Array<PlannedVersion<F>>;
  markdoc: MarkdocPlan<F>;
  legacyParts: false;
  pages: number;
  warnings: ImportWarning[];
}

export interface ImportPlan {
  versions: PlannedVersion[];
  /** set for the platform's Git format */
  markdoc?: MarkdocPlan;
  /** a Quire export of format version 1, whose page parts read by its own rule */
  legacyParts: boolean;
  pages: number;
  warnings: ImportWarning[];
}
