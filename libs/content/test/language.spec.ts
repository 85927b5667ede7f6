import { describe, expect, it } from '@jest/globals';
import { extractContent, parseDocument, primaryLanguage } from '../src/index.js';
import { FIXTURE_URL, fixtureHtml } from './support/fixtures.js';

const run = (html: string, contentLanguage?: string) =>
  extractContent(parseDocument(html), { url: FIXTURE_URL, formats: [], onlyMainContent: true, contentLanguage });

const FRENCH = `<html><body><main><p>Le tunnel du port a été ouvert à la circulation lundi matin, six ans après le
  début des travaux sous l'ancien chenal. Selon la mairie, la traversée entre les deux moitiés de la ville prendra
  désormais moins de dix minutes au lieu de quarante.</p></main></body></html>`;

describe('language', () => {
  it('takes <html lang> first, reduced to ISO 639-1', () => {
    expect(run(fixtureHtml('head-metadata')).language).toBe('de');
  });

  it('takes the Content-Language header when the page declares nothing', () => {
    expect(run(FRENCH, 'fr-CA').language).toBe('fr');
  });

  it('detects the language from the text otherwise', () => {
    expect(run(FRENCH).language).toBe('fr');
  });

  it('answers null when there is too little text to tell', () => {
    expect(run('<html><body><p>OK</p></body></html>').language).toBeNull();
  });

  it('normalises language tags', () => {
    expect(primaryLanguage('EN_gb')).toBe('en');
    expect(primaryLanguage('deu')).toBe('de');
    expect(primaryLanguage('not a tag')).toBeNull();
  });
});

describe('words', () => {
  it('counts the words of the main content only', () => {
    const main = run(fixtureHtml('forum-thread')).words;
    const page = extractContent(parseDocument(fixtureHtml('forum-thread')), {
      url: FIXTURE_URL,
      formats: [],
      onlyMainContent: false,
    }).words;
    // Counted by hand from the expected markdown; each author name touches its date in the
    // markup (<a>flourpower</a><span>12 Feb</span>), and the two are rendered apart.
    expect(main).toBe(125);
    expect(page).toBeGreaterThan(main);
  });
});
