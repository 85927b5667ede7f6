/// <reference lib="dom" />
// The lib works on linkedom documents through the standard DOM interfaces; the reference makes
// those types available even though the workspace compiles against ES2023 only.

export type ContentFormat = 'markdown' | 'text' | 'cleanHtml' | 'rawHtml' | 'links';

export interface FieldSpec {
  selector: string;
  attr?: string;
  all?: boolean;
}

export interface ContentOptions {
  /** Final URL of the page: the base for absolute links. */
  url: string;
  formats: ReadonlyArray<ContentFormat>;
  /** Keep the main content only (drop nav, header, footer, sidebars, comments…). */
  onlyMainContent: boolean;
  /** CSS selectors kept even outside the main content. */
  includeTags?: string[];
  /** CSS selectors always removed. */
  excludeTags?: string[];
  /** Default true: cookie notices, consent/newsletter/app banners, modals, widgets. */
  removeBanners?: boolean;
  /** Default true: data: URI images replaced by their alt text. */
  removeBase64Images?: boolean;
  /** selector = CSS, or XPath when it begins with "/" or "(". */
  fields?: Record<string, string | FieldSpec>;
  /** The Content-Language response header, when the fetch had one. */
  contentLanguage?: string | null;
}

export interface Head {
  title: string | null;
  description: string | null;
  canonical: string | null;
  robots: string | null;
  lang: string | null;
  openGraph: Record<string, string>;
  twitter: Record<string, string>;
  jsonLd: unknown[];
  hreflang: { lang: string; href: string }[];
}

export interface ContentResult {
  markdown?: string;
  text?: string;
  cleanHtml?: string;
  rawHtml?: string;
  links?: string[];
  head: Head;
  /** null when a selector matches nothing; a list with all:true. */
  fields?: Record<string, string | string[] | null>;
  /** Selectors that are invalid, with the reason. */
  fieldErrors?: Record<string, string>;
  /** Words of the main content (or of the page when !onlyMainContent). */
  words: number;
  /**
   * True when the body held no text and the content is what the page declares of itself (its
   * JSON-LD, a passage-length description): the page as served is a shell around it.
   */
  declared?: boolean;
  /** ISO 639-1 when known. */
  language: string | null;
}
