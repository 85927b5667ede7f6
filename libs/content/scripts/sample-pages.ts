import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * The pages the content scripts measure: every n-th `<id>.html.gz` of `dir` (the WCXB dev split
 * unless WCXB_HTML_DIR says otherwise), so that a sample of `size` spans every page type, as
 * `pnpm bench content` samples them; or the pages named in `only`, by id.
 */
export const samplePages = (
  size: number,
  only?: string[],
  dir = process.env.WCXB_HTML_DIR ?? '/work/shared/extraction/wcxb/dev/html',
): { id: string; html: string }[] => {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.html.gz'))
    .sort();
  const step = Math.max(1, Math.floor(files.length / size));
  return (
    only ? files.filter((f) => only.includes(f.replace(/\.html\.gz$/, ''))) : files.filter((_, i) => i % step === 0)
  )
    .slice(0, size)
    .map((f) => ({
      id: f.replace(/\.html\.gz$/, ''),
      html: zlib.gunzipSync(fs.readFileSync(path.join(dir, f))).toString('utf8'),
    }));
};
