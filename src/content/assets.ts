const MAPPING_LINE = /^[ \t]*<!--[ \t]*asset:([A-Za-z0-9._-]+)[ \t]*=[ \t]*(\S+?)[ \t]*-->[ \t]*$/;
const BLANK_LINE = /^[ \t]*$/;

/** An image URL naming an uploaded asset: `asset:ID`. */
export const ASSET_URL = /^asset:([A-Za-z0-9._-]+)$/;

export interface AssetSplit {
  /** the source without its trailing mapping comments (a prefix of the source, so line numbers agree) */
  body: string;
  assets: ReadonlyMap<string, string>;
}

const NO_ASSETS: ReadonlyMap<string, string> = new Map();

/**
 * Reads the `<!-- asset:ID=https://… -->` comments a page ends with. Only the trailing run counts (blank
 * lines may separate them): the same text earlier in the page, say inside a code block, is content.
 */
export function splitAssetMappings(source: string): AssetSplit {
  // Fast path: almost every page has none, and this runs on every render.
  if (!source.includes('<!--')) return { body: source, assets: NO_ASSETS };
  let end = source.length;
  let bodyEnd = source.length;
  const found: Array<[string, string]> = [];
  while (end > 0) {
    const lineStart = Math.max(source.lastIndexOf('\n', end - 1) + 1, 0);
    const line = source.slice(lineStart, end).replace(/\r$/, '');
    const mapping = MAPPING_LINE.exec(line);
    if (mapping !== null) {
      found.push([mapping[1] ?? '', mapping[2] ?? '']);
      bodyEnd = lineStart;
    } else if (!BLANK_LINE.test(line)) {
      break;
    }
    end = lineStart === 0 ? 0 : lineStart - 1;
  }
  if (found.length === 0) return { body: source, assets: NO_ASSETS };
  // `found` is bottom-up; insert top-down so that an ID mapped twice takes its later line.
  const assets = new Map<string, string>();
  for (let i = found.length - 1; i >= 0; i -= 1) {
    const [id, url] = found[i] ?? ['', ''];
    assets.set(id, url);
  }
  return { body: source.slice(0, bodyEnd), assets };
}

/** An image URL with `asset:ID` replaced by the mapped URL; anything else (or an unmapped ID) as given. */
export function resolveAssetUrl(url: string, assets: ReadonlyMap<string, string>): string {
  const match = ASSET_URL.exec(url.trim());
  return (match && assets.get(match[1] ?? '')) ?? url;
}
