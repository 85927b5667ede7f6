import { emptyRow, type PageResult } from '../../src/ladder/ladder.service.js';

/** A page the http rung read, as the ladder answers it: `words` long, with one link onwards. */
export const readResult = (url: string, words: number): PageResult => ({
  row: {
    ...emptyRow(url),
    status: 'done',
    httpStatus: 200,
    verdict: 'ok',
    errorCode: 'OK',
    method: 'http',
    tier: 'http',
    credits: 1,
    words,
    crawledAt: new Date().toISOString(),
  },
  bodies: { markdown: `# ${url}\n\n${'tide '.repeat(words)}`, links: [`${url}/next`] },
});
