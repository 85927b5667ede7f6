import { readDeclared, type Declared } from './declared-content.js';
import type { PageScan } from './dom-walk.js';
import { findMainContent } from './main-content.js';
import { NameMatcher } from './patterns.js';
import type { Head } from './types.js';

/**
 * What cleaning and the main-content finder are told about the page, read from it as fetched:
 * its scan, the description it declares (a drawer that holds it is content, not a dialog) and
 * whether it is one product's page. extractContent and explainRemovals both take them from here,
 * so what pages/removed says is removed is what the extraction removes.
 */
export interface PageHints {
  scan: PageScan;
  declared: Declared;
  names: NameMatcher;
}

export const pageHints = (scan: PageScan, head: Head): PageHints => ({
  scan,
  declared: readDeclared(head),
  names: new NameMatcher(),
});

/** The hints as cleanDocument takes them. */
export const cleaningHints = (hints: PageHints) => ({
  declared: hints.declared.openings,
  scan: hints.scan,
  names: hints.names,
});

/** The main content of a cleaned body, found with the hints. */
export const mainContentOf = (body: Element, hints: PageHints) =>
  findMainContent(body, hints.names, hints.declared.openings, {
    product: hints.declared.product,
    productNames: hints.declared.names,
    article: hints.declared.article,
    fieldForms: hints.scan.fieldForms,
  });
