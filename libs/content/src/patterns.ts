// Class/id/role vocabularies the cleaner and the main-content finder judge elements by. A
// pattern matches whole tokens of "class id" (split on space, "-" and "_" boundaries), so
// "nav" matches "site-nav" but not "canvas".

const TOKEN_OPEN = '(?:^|[\\s_-])(?:';
const TOKEN_CLOSE = ')(?=$|[\\s_-])';
// Words of a name are joined by "-", "_" or nothing ("comment-list", "comment_list",
// "commentlist"): an optional hyphen in a pattern stands for any of the three.
const tokens = (words: string): RegExp =>
  new RegExp(`${TOKEN_OPEN}${byFirstLetter(words.replace(/-\?/g, '[-_]?'))}${TOKEN_CLOSE}`, 'i');

/**
 * The same alternatives, those that open with a plain letter or digit grouped under it
 * ("cookies?|consent|nav" → "c(?:ookies?|onsent)|n(?:av)"). The regex engine tries a pattern's
 * alternatives one by one at every token start of a class or id; grouped, one comparison of the
 * first character rules out a whole group (a third less time over the dev pages' names).
 */
function byFirstLetter(words: string): string {
  const groups = new Map<string, string[]>();
  const others: string[] = [];
  for (const alternative of topLevelAlternatives(words)) {
    const first = alternative[0] ?? '';
    if (/^[a-z0-9]$/.test(first) && !/^[?*+{]/.test(alternative.slice(1))) {
      const group = groups.get(first) ?? [];
      group.push(alternative.slice(1));
      groups.set(first, group);
    } else others.push(alternative);
  }
  const grouped = [...groups].map(([first, rests]) =>
    rests.length === 1 ? first + rests[0] : `${first}(?:${rests.join('|')})`,
  );
  return [...grouped, ...others].join('|');
}

/** "a|b(?:c|d)|[e|]" → ["a", "b(?:c|d)", "[e|]"]: split on the bars outside groups and classes. */
function topLevelAlternatives(words: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < words.length; i++) {
    const c = words[i];
    if (c === '\\') i++;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === '|' && depth === 0) {
      out.push(words.slice(start, i));
      start = i + 1;
    }
  }
  out.push(words.slice(start));
  return out;
}
/** The alternatives a pattern made by tokens() matches as whole tokens. */
const wordsOf = (pattern: RegExp): string => pattern.source.slice(TOKEN_OPEN.length, -TOKEN_CLOSE.length);

/** Cookie and privacy consent: removed even when long (consent dialogs list every vendor). */
export const CONSENT = tokens(
  [
    'cookies?',
    'cookie-?(?:banner|bar|notice|consent|law|policy|popup|settings)',
    'consent',
    'gdpr',
    'onetrust',
    'didomi',
    'cookiebot',
    'truste',
    'usercentrics',
    'qc-cmp2',
    'privacy-?(?:banner|notice|settings|center)',
  ].join('|'),
);

/** Newsletter prompts, app banners, modals and popovers, chat and ad widgets. */
export const BANNER = tokens(
  [
    'newsletter(?:-?(?:signup|popup|modal|form))?',
    'popup',
    'pop-?up',
    'popover(?![-_]*(?:trigger|toggle|button|link|anchor))',
    'modal',
    'overlay',
    'interstitial',
    'lightbox',
    'smart-?banner',
    'app-?banner',
    'announcement-?bar',
    'promo-?bar',
    'notification-?bar',
    'intercom',
    'drift',
    'hubspot-messages',
    'zendesk',
    'livechat',
    'chat-?widget',
    'adsbygoogle',
    'ad-?(?:slot|unit|container|wrapper|banner|placeholder)',
    'advert(?:isement)?s?',
    'dfp',
    'gpt-ad',
    'taboola',
    'outbrain',
  ].join('|'),
);

/**
 * A folded section: a tab panel, an accordion's or a collapsible's body, a "read more"
 * continuation. Hidden until a click, it is content the page holds (a product's details tab,
 * a service's answers), not a closed menu or dialog.
 */
export const FOLDED = tokens(
  [
    'tabs?[-_]*(?:pane|panel|content|body)s?',
    'accordion(?:-?(?:content|panel|body|item))?',
    'collaps(?:e|ed|ible)',
    'expander(?:-?content)?',
    'toggle(?:-?content)?',
    'read-?more(?:-?content)?',
  ].join('|'),
);

export const BANNER_ROLES = new Set(['dialog', 'alertdialog']);

/** Furniture words that name links to other pages of the site (see OTHER_PAGES). */
const OTHER_PAGES_WORDS = [
  'related',
  'related-?(?:posts|articles|stories|content|products)',
  'recommended',
  'recommendations?',
  'recirc',
  'more-?stories',
  'read-?more',
  'latest-?(?:posts|news|articles|stories|insights|updates|blogs?)',
  'similar-?(?:contents?|threads?|posts?|articles?|products?|items?|topics?|questions?|stories|reads?|courses?|list)',
];

/**
 * A forum post's furniture around the message: the poster's rank title and details (join date,
 * post count), their signature, the like counts. The message and the poster's name stay.
 */
const POST_FURNITURE_WORDS = ['signature', 'user-?title', 'user-?details', 'likes'];

/**
 * The box of a post's furniture that names its poster (a XenForo "message-userDetails"), and the
 * name in it: who said what stays in a thread's markdown while the rank, banner and counts go.
 */
export const POSTER_BOX = tokens('user-?details');
export const POSTER_NAME = tokens(['user-?name', 'message-?name', 'author-?name', 'poster-?name'].join('|'));

/** Page furniture: navigation, headers and footers, sidebars, sharing, related links, forms. */
export const BOILERPLATE = tokens(
  [
    'nav',
    'navbar',
    'navigation',
    'menu',
    'menubar',
    'mega-?menu',
    'breadcrumbs?',
    'crumbs?',
    'footer',
    'site-?footer',
    'masthead',
    'site-?header',
    'sidebar',
    'side-?bar',
    'aside',
    ...OTHER_PAGES_WORDS,
    'share',
    'sharing',
    'share-?(?:bar|buttons|tools|links)',
    'social',
    'social-?(?:links|media|share|icons)',
    'subscribe',
    'subscription',
    'signup',
    'sign-?up',
    'promo',
    'sponsor(?:ed)?',
    'pagination',
    'pager',
    'paging',
    'tag-?cloud',
    'tags',
    'post-?tags',
    'author-?(?:bio|box|info)',
    ...POST_FURNITURE_WORDS,
    'byline',
    'post-?meta',
    'entry-?meta',
    'article-?meta',
    'toolbar',
    'skip-?link',
    'login',
    'search(?:-?(?:form|bar|box))?',
    'disclaimer',
    'copyright',
    'legal',
    'print',
  ].join('|'),
);

/**
 * The furniture words that stay furniture however long the element: a footer full of
 * testimonials, a carousel of related stories with their excerpts, a legal disclaimer. The
 * others (nav, menu, sidebar, search, print…) also appear inside longer names of content
 * ("search-results", "content-nav-section", "toc-content-sidebar", "hidden-print").
 */
export const FURNITURE_ALWAYS = tokens(
  ['footer', 'site-?footer', 'masthead', 'site-?header', ...OTHER_PAGES_WORDS, 'disclaimer', 'copyright', 'legal'].join(
    '|',
  ),
);

/**
 * The furniture words that name links to other pages of the site ("related", "recirc", "more
 * stories"): on a page that is itself a listing, a card of its grid may be named so.
 */
export const OTHER_PAGES = tokens(OTHER_PAGES_WORDS.join('|'));

/**
 * A class or id that is nothing but a furniture word ("sidebar", id="nav"): named for what it
 * is, not qualifying a name of content, so furniture however long.
 */
export const FURNITURE_EXACT =
  /^\s*(?:sidebar|side-?bar|aside|nav|navbar|navigation|menu|breadcrumbs?|pagination)\s*$/i;

/**
 * Labels for screen readers, hidden from sight ("Original price was:", "Rated 4 out of 5"):
 * neither content nor furniture, wherever they sit (a product card holds several).
 */
export const LABELS = tokens(
  [
    'visually-?hidden',
    'sr-only',
    'screen-?reader-?(?:text|only)',
    'sr-?text',
    'assistive-?text',
    'offscreen',
    'hidden-?visually',
  ].join('|'),
);

/** Comment sections of articles (kept when the page is itself a thread of posts). */
export const COMMENTS = tokens(
  [
    'comments',
    'comment-?(?:list|listing|section|area|form|wrap)',
    'comments-?(?:area|section|list|wrap)',
    'commentlist',
    'disqus_thread',
    'respond',
  ].join('|'),
);

/** A product's reviews and questions: what buyers say about the item, its comment section. */
export const REVIEWS = tokens(
  [
    '(?:customer-?|product-?|user-?)?reviews',
    'reviews?-?(?:list|section|container|wrapper|widget)',
    'ratings?-?(?:and-?)?reviews',
    'questions?-?(?:and-?)?answers',
  ].join('|'),
);

/** Where pages put their main text. */
export const CONTENT = tokens(
  [
    'article',
    'article-?(?:body|content|text)',
    'post',
    'post-?(?:body|content|text)',
    'entry',
    'entry-?content',
    'content',
    'main',
    'main-?content',
    'story',
    'story-?body',
    'body',
    'text',
    'blog-?post',
    'prose',
    'markdown(?:-body)?',
    'rich-?text',
    'product-?description',
    'description',
    'documentation',
    'docs?-?content',
  ].join('|'),
);

/** A product's description (and its abbreviations): on a product page, the content itself. */
export const DESCRIPTION = tokens(['(?:product-?)?description', '(?:product-?)?desc'].join('|'));

/**
 * A product page's purchase widgets: prices, the buy box, quantity and variant pickers, payment
 * and delivery notes, stock and wishlist buttons (the description and specifications are the
 * page's content; these are the shop's controls around them).
 */
export const PURCHASE = tokens(
  [
    '(?:product-?)?prices?',
    'price-?(?:box|wrapper|container|block)',
    'add-?to-?(?:cart|bag|basket)',
    'addtocart',
    'cart',
    'buy-?(?:box|buttons?|now)',
    'product-?form',
    'quantity',
    'qty',
    'options',
    'swatch(?:es)?',
    'variants?',
    'variant-?(?:picker|selector|options)',
    'afterpay',
    'klarna',
    'payments?',
    'shipping',
    'delivery',
    'stock',
    'availability',
    'wishlist',
    'size-?guide',
    'sticky',
  ].join('|'),
);

export const BOILERPLATE_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'menu',
  'menubar',
  'toolbar',
  'dialog',
  'alertdialog',
]);

/** Bits of NameMatcher.of: the vocabularies an element's class or id matches. */
export const NAME_CONSENT = 1;
export const NAME_BANNER = 2;
export const NAME_BOILERPLATE = 4;
export const NAME_COMMENTS = 8;
export const NAME_CONTENT = 16;
export const NAME_LABEL = 32;
export const NAME_FURNITURE_ALWAYS = 64;
export const NAME_REVIEWS = 128;
export const NAME_DESCRIPTION = 256;
export const NAME_PURCHASE = 512;
export const NAME_OTHER_PAGES = 1024;

/**
 * The vocabularies above matched against an element's class and id. A page repeats the same
 * class strings over and over: each distinct string is tested once (per matcher, one per page),
 * and only against the vocabularies asked for (cleaning asks for two, scoring for three).
 * Class and id are tested apart, which answers as testing "class id" would: no word of the
 * vocabularies holds a space, so no match spans the two.
 */
export class NameMatcher {
  /** Per string: the bits found, and above them (<< 8) the bits tested. */
  private readonly seen = new Map<string, number>();

  /** The bits among `wanted` that the class or the id of el matches. */
  of(el: Element, wanted: number): number {
    // The class attribute's node, not getAttribute('class'): linkedom as published answers that
    // one through className, which builds a token set and joins it again on every call.
    return this.ofNames(el.getAttributeNode('class')?.value ?? null, el.getAttribute('id'), wanted);
  }

  /** The same, from the class and id already read (judgedAttributes). */
  ofNames(cls: string | null, id: string | null, wanted: number): number {
    return ((cls ? this.test(cls, wanted) : 0) | (id ? this.test(id, wanted) : 0)) & wanted;
  }

  private test(s: string, wanted: number): number {
    let bits = this.seen.get(s) ?? 0;
    const untested = wanted & ~(bits >> TESTED);
    if (untested) {
      // Most names match no vocabulary: one scan for any word of any of them tells them apart,
      // and they are then known for every vocabulary.
      if (!ANY_NAME.test(s) && !FURNITURE_EXACT.test(s)) bits |= ALL_NAMES << TESTED;
      else {
        for (const [bit, pattern] of VOCABULARIES) {
          if (untested & bit && pattern.test(s)) bits |= bit;
        }
        bits |= untested << TESTED;
      }
      this.seen.set(s, bits);
    }
    return bits;
  }
}

const TESTED = 16;
const VOCABULARIES: [number, RegExp][] = [
  [NAME_CONSENT, CONSENT],
  [NAME_BANNER, BANNER],
  [NAME_BOILERPLATE, BOILERPLATE],
  [NAME_COMMENTS, COMMENTS],
  [NAME_CONTENT, CONTENT],
  [NAME_LABEL, LABELS],
  [NAME_FURNITURE_ALWAYS, FURNITURE_ALWAYS],
  [NAME_FURNITURE_ALWAYS, FURNITURE_EXACT],
  [NAME_REVIEWS, REVIEWS],
  [NAME_DESCRIPTION, DESCRIPTION],
  [NAME_PURCHASE, PURCHASE],
  [NAME_OTHER_PAGES, OTHER_PAGES],
];
const ALL_NAMES = VOCABULARIES.reduce((all, [bit]) => all | bit, 0);
/** The words of every token vocabulary (all but FURNITURE_EXACT) in one pattern. */
const ANY_NAME = tokens(
  VOCABULARIES.filter(([, pattern]) => pattern !== FURNITURE_EXACT)
    .map(([, pattern]) => wordsOf(pattern))
    .join('|'),
);
