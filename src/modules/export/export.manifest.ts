/**
 * `manifest.json`, the last file of an export: what the archive holds, with ids and slugs. Import reads
 * it when present (version slugs and published flags, references' published flags); an archive
 * without one (the platform's own exports) imports all the same.
 */
export interface ExportManifest {
  kind: 'quire-export';
  /**
   * 2: page parts as darkdown.md §5 says (a newline, the body, a newline). 1 wrote one more blank
   * line before `---published`; import still reads those files as they were meant.
   */
  formatVersion: 1 | 2;
  exported: string;
  project: { id: number; name: string };
  /** `markdown`: the bodies were converted and are no longer Darkdown */
  contentFormat: 'darkdown' | 'markdown';
  versions: ManifestVersion[];
  counts: { versions: number; documentation: number; categories: number; pages: number; references: number };
  /** what could not be written as it is stored */
  warnings: Array<{ file: string; message: string }>;
}

export interface ManifestVersion {
  id: number;
  name: string;
  slug: string;
  published: boolean;
  /** the version's folder in the archive */
  folder: string;
  documentation: Array<{
    id: number;
    title: string;
    slug: string;
    published: boolean;
    folder: string;
    categories: number;
    pages: number;
  }>;
  references: Array<{
    id: number;
    title: string;
    slug: string;
    published: boolean;
    /** within the version's folder: the published definition, or the draft of an unpublished reference */
    file: string;
    /** a draft pending over the published definition */
    draftFile?: string;
  }>;
}
