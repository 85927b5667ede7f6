import { franc } from 'franc-min';

/**
 * franc-min answers ISO 639-3; the page row carries ISO 639-1. Only the languages franc-min
 * knows are listed; those without a 639-1 code (Cebuano, Maithili, Bhojpuri, …) give null.
 */
const ISO_639_3_TO_1: Record<string, string> = {
  cmn: 'zh',
  spa: 'es',
  eng: 'en',
  rus: 'ru',
  arb: 'ar',
  ben: 'bn',
  hin: 'hi',
  por: 'pt',
  ind: 'id',
  jpn: 'ja',
  fra: 'fr',
  deu: 'de',
  jav: 'jv',
  kor: 'ko',
  tel: 'te',
  vie: 'vi',
  mar: 'mr',
  ita: 'it',
  tam: 'ta',
  tur: 'tr',
  urd: 'ur',
  guj: 'gu',
  pol: 'pl',
  ukr: 'uk',
  kan: 'kn',
  mal: 'ml',
  pes: 'fa',
  mya: 'my',
  swh: 'sw',
  sun: 'su',
  ron: 'ro',
  pan: 'pa',
  amh: 'am',
  hau: 'ha',
  fuv: 'ff',
  bos: 'bs',
  hrv: 'hr',
  nld: 'nl',
  srp: 'sr',
  tha: 'th',
  ckb: 'ku',
  yor: 'yo',
  uzn: 'uz',
  zlm: 'ms',
  ibo: 'ig',
  npi: 'ne',
  tgl: 'tl',
  hun: 'hu',
  azj: 'az',
  sin: 'si',
  ell: 'el',
  ces: 'cs',
  run: 'rn',
  bel: 'be',
  plt: 'mg',
  qug: 'qu',
  nya: 'ny',
  zyb: 'za',
  pbu: 'ps',
  kin: 'rw',
  zul: 'zu',
  bul: 'bg',
  swe: 'sv',
  lin: 'ln',
  som: 'so',
  kaz: 'kk',
};

/** "en-US", "EN_gb", "en, fr" → "en"; anything that is not a language tag → null. */
export function primaryLanguage(tag: string | null | undefined): string | null {
  const m = /^\s*([a-z]{2,3})(?:[-_][a-z0-9]+)*\s*(?:[,;].*)?$/i.exec(tag ?? '');
  if (!m?.[1]) return null;
  const code = m[1].toLowerCase();
  if (code.length === 2) return code;
  return ISO_639_3_TO_1[code] ?? null;
}

/** Declared language first (<html lang>, Content-Language); else guessed from the text. */
export function detectLanguage(declared: string | null, text: string): string | null {
  const fromTag = primaryLanguage(declared);
  if (fromTag) return fromTag;
  // 2,000 characters are plenty for trigram statistics: on the main text of the 1,497 WCXB dev
  // pages franc guessed as it did from 4,000 on every page, in 2.46 ms a page against 3.13.
  const sample = text.slice(0, 2000);
  const guess = franc(sample, { minLength: 20 });
  return guess === 'und' ? null : (ISO_639_3_TO_1[guess] ?? null);
}
