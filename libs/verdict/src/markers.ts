/**
 * Phrases and markup that give a page away. Each list is what real sites of that kind serve;
 * they are matched case-insensitively against the title, headings and the first part of the
 * visible text (or the raw HTML for markup markers).
 */
export const CHALLENGE_MARKUP = [
  '/cdn-cgi/challenge-platform',
  'cf-chl-',
  'cf_chl_opt',
  '_incapsula_resource',
  'captcha-delivery.com',
  'px-captcha',
  '/_sec/cp_challenge',
  'ak_bmsc',
  'sucuri-cloudproxy',
  'ddos-guard',
];

export const CHALLENGE_TEXT = [
  'just a moment',
  'checking your browser',
  'attention required',
  'verify you are human',
  'verifying you are human',
  'please enable cookies',
  'ddos protection by',
  'access denied',
  'request blocked',
  'you have been blocked',
  'unusual traffic',
  'are you a robot',
  'bot detection',
];

export const CAPTCHA_MARKUP = [
  'g-recaptcha',
  'recaptcha/api.js',
  'h-captcha',
  'hcaptcha.com/1/api.js',
  'cf-turnstile',
  'challenges.cloudflare.com/turnstile',
  'geetest',
  'funcaptcha',
  'arkoselabs',
  'frc-captcha',
];

export const LOGIN_TEXT = [
  'sign in to continue',
  'log in to continue',
  'login to continue',
  'please log in',
  'please sign in',
  'you must be logged in',
  'you need to sign in',
  'members only',
  'subscribe to continue reading',
  'sign in to view',
  'log in to view',
];

export const GEO_TEXT = [
  'not available in your country',
  'not available in your region',
  'not available in your location',
  'unavailable in your country',
  'unavailable in your region',
  'blocked in your country',
  'is not available in your area',
  'geo-restricted',
  'this content is not available in',
];

export const SOFT_404_TEXT = [
  'page not found',
  'not found',
  'page does not exist',
  "page doesn't exist",
  'page cannot be found',
  "page can't be found",
  'no longer available',
  'nothing was found',
  'error 404',
];

/**
 * A bare 404 in a title or heading reads as "not found" only when it stands alone (`404`,
 * `404 | Site`, `Site – 404`) or beside an error word: "Page 404" of a numbered series or a
 * "Peugeot 404" review is a page like any other.
 */
export const says404 = (titleOrHeading: string): boolean => {
  const t = titleOrHeading.trim().toLowerCase();
  if (!/\b404\b/.test(t)) return false;
  if (/^404\b\s*(?:[|\-–—:·•!.]|$)/.test(t) || /(?:[|\-–—:·•]\s*)404[!.]?$/.test(t)) return true;
  return /\b(?:error|oops|missing|lost|gone)\b/.test(t);
};

export const NEEDS_JS_TEXT = [
  'enable javascript',
  'javascript is required',
  'javascript is disabled',
  'requires javascript',
  'turn on javascript',
  'you need to enable javascript',
];

export const includesAny = (haystack: string, needles: readonly string[]): string | undefined =>
  needles.find((n) => haystack.includes(n));
