/**
 * Captcha widget detection, run in the page after load. The widget scripts of a page served
 * without the internet never load, so detection reads markup, script and frame addresses only;
 * nothing is clicked or solved.
 */
export const WIDGETS = [
  'recaptcha',
  'hcaptcha',
  'turnstile',
  'geetest',
  'arkose',
  'datadome',
  'perimeterx',
  'aws-waf',
  'friendly-captcha',
] as const;
export type Widget = (typeof WIDGETS)[number];

/** Frame and script addresses that identify a widget. */
const URL_MARKERS: [Widget, RegExp][] = [
  [
    'recaptcha',
    /(google\.com|recaptcha\.net)\/recaptcha\/(api2|enterprise)\/(anchor|bframe)|\/recaptcha\/(api|enterprise)\.js/i,
  ],
  ['hcaptcha', /(^|[./])hcaptcha\.com\//i],
  ['turnstile', /challenges\.cloudflare\.com\/(turnstile|cdn-cgi)|\/cdn-cgi\/challenge-platform\//i],
  ['geetest', /(^|[./])geetest\.com\//i],
  ['arkose', /arkoselabs\.com\/|funcaptcha\.com\//i],
  ['datadome', /captcha-delivery\.com\//i],
  ['perimeterx', /captcha\.px-cdn\.net|captcha\.px-cloud\.net|\/captcha\/captcha\.js\?.*px/i],
  ['aws-waf', /awswaf\.com\/.*captcha|captcha\.awswaf\.com/i],
  ['friendly-captcha', /friendlycaptcha|friendly-challenge/i],
];

/** Selectors of the widgets' containers. */
const SELECTORS: [Widget, string][] = [
  ['recaptcha', '.g-recaptcha, #g-recaptcha'],
  ['hcaptcha', '.h-captcha, [data-hcaptcha-widget-id]'],
  ['turnstile', '.cf-turnstile, #challenge-form, #cf-challenge-running, #turnstile-wrapper'],
  ['geetest', '.geetest_holder, .geetest_captcha, .geetest_panel, [class^="geetest_"]'],
  ['arkose', '#FunCaptcha, #arkose, [data-pkey], #arkose-container'],
  ['datadome', '#ddv1-captcha-container, .dd-captcha'],
  ['perimeterx', '#px-captcha, #px-captcha-wrapper'],
  ['aws-waf', '#aws-waf-token, #captcha-container[data-awswaf], awswaf-captcha'],
  ['friendly-captcha', '.frc-captcha'],
];

export interface PageEvidence {
  /** src of every script and iframe in the main document. */
  urls: string[];
  /** Widgets whose container selector matched. */
  matched: Widget[];
  /** Inline script text, first few kilobytes of each (AwsWafCaptcha, PX captcha bootstraps). */
  inline: string;
}

/**
 * Runs in the page: gathers what detection needs in one round trip. A string, not a function:
 * transpilers (tsx, swc) may wrap functions with helpers the page does not have.
 */
export const EVIDENCE_SCRIPT = `(() => {
  const selectors = ${JSON.stringify(SELECTORS)};
  const urls = [];
  for (const el of document.querySelectorAll('script[src], iframe[src]')) urls.push(el.src);
  const matched = [];
  for (const [widget, selector] of selectors) {
    try { if (document.querySelector(selector)) matched.push(widget); } catch { /* unknown selector */ }
  }
  let inline = '';
  for (const el of document.querySelectorAll('script:not([src])')) inline += (el.textContent || '').slice(0, 4096) + '\\n';
  return { urls, matched, inline: inline.slice(0, 65536) };
})()`;

/**
 * The widget a page shows, first match in the order of WIDGETS; undefined when none.
 * reCAPTCHA v3 (api.js?render=<site key>, no container) is invisible and on many ordinary
 * pages, so it is not reported as a widget.
 */
export const detectWidget = (evidence: PageEvidence, frameUrls: string[]): Widget | undefined => {
  const urls = [...evidence.urls, ...frameUrls];
  for (const widget of WIDGETS) {
    if (evidence.matched.includes(widget)) return widget;
    const marker = URL_MARKERS.find(([w]) => w === widget)![1];
    const hits = urls.filter((u) => marker.test(u));
    if (widget === 'recaptcha') {
      const visible = hits.filter((u) => !/[?&]render=(?!explicit|onload)[^&]+/i.test(u));
      if (visible.length) return widget;
      continue;
    }
    if (hits.length) return widget;
  }
  if (/AwsWafCaptcha|awsWafCaptcha/.test(evidence.inline)) return 'aws-waf';
  if (/_pxCaptcha|window\._pxAppId[\s\S]{0,400}captcha/i.test(evidence.inline)) return 'perimeterx';
  if (/captcha-delivery\.com/.test(evidence.inline)) return 'datadome';
  return undefined;
};
