import type { VideoProvider } from './plugin-data.ts';

const SAFE_ID = /^[\w-]{1,128}$/;

function rawUrl(value: string): string | null {
  const url = value.trim();
  return /^https?:\/\//i.test(url) ? url : null;
}

/** The player URL: the providers' embed hosts are the only iframe sources the sanitiser lets through. */
export function videoEmbedUrl(provider: VideoProvider, videoId: string): string | null {
  if (provider === 'raw') return rawUrl(videoId);
  const id = videoId.trim();
  if (!SAFE_ID.test(id)) return null;
  switch (provider) {
    case 'youtube':
      return `https://www.youtube.com/embed/${id}`;
    case 'vimeo':
      return `https://player.vimeo.com/video/${id}`;
    case 'loom':
      return `https://www.loom.com/embed/${id}`;
  }
}

/** The page a reader opens, for formats that link to the video rather than embed it. */
export function videoPageUrl(provider: VideoProvider, videoId: string): string | null {
  if (provider === 'raw') return rawUrl(videoId);
  const id = videoId.trim();
  if (!SAFE_ID.test(id)) return null;
  switch (provider) {
    case 'youtube':
      return `https://www.youtube.com/watch?v=${id}`;
    case 'vimeo':
      return `https://vimeo.com/${id}`;
    case 'loom':
      return `https://www.loom.com/share/${id}`;
  }
}
