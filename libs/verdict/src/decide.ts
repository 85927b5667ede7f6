import type { PageErrorCode, Verdict } from '@tidemark/contracts';
import { LITTLE_WORDS, type PageFeatures } from './features.js';
import { CHALLENGE_TEXT, GEO_TEXT, includesAny, LOGIN_TEXT, NEEDS_JS_TEXT, says404, SOFT_404_TEXT } from './markers.js';

export type Shape = 'listing' | 'table' | 'form' | 'empty';

/** What the fetch itself said, before the markup is read. */
export interface FetchFacts {
  tier: 'http' | 'browser';
  status: number;
  headers: Record<string, string | undefined>;
  /** A captcha widget the browser found on the page. */
  widget?: string;
}

export interface VerdictOptions {
  /** Word floor: pages under it are skipped (config content.min_words). */
  minWords: number;
  /** Languages kept; empty = all (config content.languages). */
  languages: string[];
}

export interface VerdictResult {
  verdict: Verdict;
  errorCode: PageErrorCode;
  shape?: Shape;
  warnings: string[];
  /** Why: the spec's vocabulary (nav, 30 links, json-ld, app shell, soft 404, …). */
  signals: string[];
  /** Seconds a RATE_LIMITED site asked us to wait. */
  retryAfter?: number;
  /** Whether a higher rung of the ladder might read what this one could not. */
  climb: boolean;
}

/** Under this many words of main content a real page is `thin`. */
export const SHORT_WORDS = 50;

const parseRetryAfter = (value: string | undefined, now = Date.now()): number | undefined => {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
};

export const shapeOf = (f: PageFeatures): Shape => {
  if (f.tableRows >= 3) return 'table';
  if (f.listItems >= 5) return 'listing';
  if (f.forms > 0 && f.inputs >= 2) return 'form';
  if (f.links >= 20) return 'listing';
  return 'empty';
};

/** The descriptive signals every verdict carries: what the page is made of. */
const describe = (f: PageFeatures): string[] => {
  const s: string[] = [];
  if (f.nav) s.push('nav');
  if (f.links > 0) s.push(`${f.links} links`);
  if (f.jsonLd) s.push('json-ld');
  if (f.openGraph) s.push('open graph');
  if (f.main) s.push('main');
  if (f.listItems >= 10) s.push('listing');
  return s;
};

const result = (
  verdict: Verdict,
  errorCode: PageErrorCode,
  f: PageFeatures,
  extra: Partial<VerdictResult> & { signals?: string[] } = {},
): VerdictResult => ({
  verdict,
  errorCode,
  warnings: [],
  climb: false,
  ...extra,
  signals: [...(extra.signals ?? []), ...describe(f)],
});

/**
 * The verdict on one fetch, from real signals: status and headers first, then the markup and
 * text. `words` is the page's main-content word count, `language` its detected language;
 * `declared` says the content is what a page whose body holds no text declares of itself (its
 * JSON-LD, its description), which does not make it less of a shell.
 */
export const decideVerdict = (
  fetch: FetchFacts,
  f: PageFeatures,
  content: { words: number; language: string | null; declared?: boolean },
  opts: VerdictOptions,
): VerdictResult => {
  const head = `${f.title} ${f.h1} ${f.text.slice(0, 400)}`.toLowerCase();
  const status = fetch.status;
  const words = content.words;
  const little = f.words < LITTLE_WORDS;

  if (status === 429) {
    const retryAfter = parseRetryAfter(fetch.headers['retry-after']);
    return result('blocked', 'RATE_LIMITED', f, {
      signals: ['rate limited'],
      ...(retryAfter !== undefined ? { retryAfter } : {}),
    });
  }
  const widget = fetch.widget || (little ? f.captchaMarkup : undefined);
  if (widget) return result('blocked', 'CAPTCHA', f, { signals: [`captcha ${widget}`], climb: true });
  const challengeText = little || status >= 400 ? includesAny(head, CHALLENGE_TEXT) : undefined;
  if ((f.challengeMarkup && (little || status >= 400)) || challengeText) {
    return result('blocked', 'BLOCKED', f, { signals: ['challenge', 'host fingerprint'], climb: true });
  }
  if (status === 401 || status === 407) return result('blocked', 'LOGIN_REQUIRED', f, { signals: [`http ${status}`] });
  if (status === 451) return result('blocked', 'GEO_RESTRICTED', f, { signals: ['http 451'], climb: true });
  if (status === 403) return result('blocked', 'BLOCKED', f, { signals: ['http 403'], climb: true });
  if (status === 404 || status === 410) return result('blocked', 'NOT_FOUND', f, { signals: [`http ${status}`] });
  if (status >= 400) return result('blocked', 'BLOCKED', f, { signals: [`http ${status}`] });

  if (f.words < 200 && includesAny(head, GEO_TEXT)) {
    return result('blocked', 'GEO_RESTRICTED', f, { signals: ['geo block'], climb: true });
  }
  if ((f.passwordInputs > 0 && f.words < LITTLE_WORDS) || (f.words < 200 && includesAny(head, LOGIN_TEXT))) {
    return result('blocked', 'LOGIN_REQUIRED', f, { signals: ['login wall'] });
  }
  const needsJs = includesAny(`${f.noscriptText} ${f.text.slice(0, 400)}`.toLowerCase(), NEEDS_JS_TEXT);
  const bodyWords = content.declared ? 0 : words;
  // The content is not the body's but what the page declares of itself: the row says so.
  const declared = content.declared ? ['declared content'] : [];
  if (fetch.tier === 'http' && bodyWords < SHORT_WORDS && (f.appRoot || needsJs || (f.scripts >= 3 && f.words < 20))) {
    const signals = ['app shell', ...declared];
    if (f.noscriptText || needsJs) signals.push('no script');
    return result('blocked', 'SHELL', f, { signals, climb: true });
  }
  const titleSays404 =
    includesAny(`${f.title} ${f.h1}`.toLowerCase(), SOFT_404_TEXT) !== undefined || says404(f.title) || says404(f.h1);
  if (titleSays404 && f.words < 300) return result('blocked', 'NOT_FOUND', f, { signals: ['soft 404'] });
  const soft404Doubt = titleSays404 ? ['soft404?'] : [];

  if (words < opts.minWords) {
    return result('skipped', 'OK', f, { signals: [...soft404Doubt, `under ${opts.minWords} words`] });
  }
  if (opts.languages.length > 0 && content.language && !opts.languages.some((l) => content.language!.startsWith(l))) {
    return result('skipped', 'OK', f, { signals: [...soft404Doubt, `language ${content.language}`] });
  }
  if (words < SHORT_WORDS) {
    return result('thin', 'OK', f, { shape: shapeOf(f), warnings: ['short'], signals: [...soft404Doubt, ...declared] });
  }
  return result('ok', 'OK', f, { signals: [...soft404Doubt, ...declared] });
};
