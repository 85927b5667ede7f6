import { describe, expect, it } from '@jest/globals';
import { extractContent, parseDocument } from '../src/index.js';
import { FIXTURES, FIXTURE_URL, fixtureHtml } from './support/fixtures.js';

const ALL = ['markdown', 'text', 'cleanHtml'] as const;

describe('cleaning', () => {
  for (const onlyMainContent of [true, false]) {
    it(`never lets scripts, styles, handlers or banners through (onlyMainContent ${onlyMainContent})`, () => {
      for (const name of FIXTURES) {
        const r = extractContent(parseDocument(fixtureHtml(name)), { url: FIXTURE_URL, formats: ALL, onlyMainContent });
        for (const out of [r.markdown, r.text, r.cleanHtml]) {
          expect(out).toBeDefined();
          expect(out).not.toMatch(/dataLayer|acceptCookies|We use cookies|color: red|Free shipping on orders/);
        }
        expect(r.cleanHtml).not.toMatch(/<(script|style|iframe|noscript|link|meta)\b|\s(on\w+|style)=|<!--/i);
      }
    });
  }

  it('keeps banners when removeBanners is false', () => {
    const r = extractContent(parseDocument(fixtureHtml('news-article')), {
      url: FIXTURE_URL,
      formats: ['text'],
      onlyMainContent: false,
      removeBanners: false,
    });
    expect(r.text).toContain('We use cookies');
  });

  it('strips event handlers, inline styles and comments from clean HTML', () => {
    const html = `<html><body><main><!-- tracking --><p onclick="track()" style="color:red" class="lead">A paragraph
      long enough to be the content, with <a href="/more" onmouseover="x()">a link</a>.</p></main></body></html>`;
    const r = extractContent(parseDocument(html), { url: FIXTURE_URL, formats: ['cleanHtml'], onlyMainContent: true });
    expect(r.cleanHtml).toBe(
      '<main><p class="lead">A paragraph\n      long enough to be the content, with <a href="https://site.example/more">a link</a>.</p></main>',
    );
  });

  it('drops elements hidden by attribute or inline style', () => {
    const html = `<html><body><main><p>Visible paragraph with enough words to count as the content.</p>
      <p hidden>Hidden by attribute.</p><div style="display: none">Hidden by style.</div></main></body></html>`;
    const r = extractContent(parseDocument(html), { url: FIXTURE_URL, formats: ['text'], onlyMainContent: false });
    expect(r.text).toBe('Visible paragraph with enough words to count as the content.');
  });

  it("drops a <title> in the body, which a browser hides (an icon's title pasted without its <svg>)", () => {
    const html = `<html><head><title>Ring Video Doorbell</title></head><body><main><h1>Video Doorbell</h1>
      <details open><summary><span><title>Doorbell Calls</title></span><h5>Doorbell Calls</h5></summary>
      <div>Cut through notification clutter with an alert that looks like a call when someone presses your doorbell.</div>
      </details></main></body></html>`;
    for (const onlyMainContent of [true, false]) {
      const r = extractContent(parseDocument(html), { url: FIXTURE_URL, formats: ALL, onlyMainContent });
      expect(r.markdown!.match(/Doorbell Calls/g)).toHaveLength(1);
      expect(r.cleanHtml).not.toContain('<title>');
      expect(r.head.title).toBe('Ring Video Doorbell');
    }
  });

  it('drops what a <video> or <audio> holds: only a browser that cannot play it shows it', () => {
    const html = `<html><body><main><h1>Stockholm sofa</h1>
      <video class="pub__simple-video" playsinline muted loop autoplay src="/media/sofa.mp4">Sorry, your browser
      doesn't support embedded videos.</video>
      <p>A deep seat and soft cushions, upholstered in a wool blend that wears well and keeps its colour for years.</p>
      <audio controls src="/media/intro.mp3">Your browser does not support the <code>audio</code> element.
      <a href="/media/intro.mp3">Download the introduction</a>.</audio></main></body></html>`;
    for (const onlyMainContent of [true, false]) {
      const r = extractContent(parseDocument(html), { url: FIXTURE_URL, formats: ALL, onlyMainContent });
      for (const out of [r.markdown!, r.text!, r.cleanHtml!]) {
        expect(out).toContain('upholstered in a wool blend');
        expect(out).not.toMatch(/support embedded videos|does not support|Download the introduction/);
      }
    }
  });

  it('drops what a framework cloaks until it runs (x-cloak, v-cloak, ng-cloak), unless the cloak holds the page', () => {
    const story = `<p>Right now you can put a refurbished laptop under the tree for a fraction of its price, while
      supplies last: the deal ends when the last one is sold, and the seller ships within two working days.</p>`;
    const signUp = `<div x-ref="smsNewsletter" x-cloak x-show="showPhone"><div>Be the first to know!</div>
      <div>Get editor selected deals texted right to your phone!</div></div>
      <div v-cloak class="toast">{{ board.errors[11793116].message }}</div>
      <div ng-cloak>Your basket holds {{ basket.count }} items</div>`;
    const widgets = `<html><body><main><h1>A laptop under the tree</h1>${story}${signUp}</main></body></html>`;
    for (const onlyMainContent of [true, false]) {
      const r = extractContent(parseDocument(widgets), { url: FIXTURE_URL, formats: ALL, onlyMainContent });
      for (const out of [r.markdown!, r.text!, r.cleanHtml!]) {
        expect(out).toContain('the seller ships within two working days');
        expect(out).not.toMatch(/Be the first|texted right to your phone|board\.errors|basket\.count/);
      }
    }
    // A Vue app whose root is cloaked: the page hides its content until the script runs, and it
    // is read as shown.
    const app = `<html><body><div id="app" v-cloak><main><h1>A laptop under the tree</h1>${story}</main></div>
      </body></html>`;
    const r = extractContent(parseDocument(app), { url: FIXTURE_URL, formats: ['text'], onlyMainContent: true });
    expect(r.text).toContain('the seller ships within two working days');
  });

  it('places React streamed segments where their placeholder was', () => {
    const html = `<html><body><main><p>Intro paragraph of the page, long enough to be content.</p>
      <template id="B:1"></template><p>Closing paragraph that comes after the streamed part.</p></main>
      <div hidden id="S:1"><p>Streamed paragraph that belongs in the middle.</p></div></body></html>`;
    const r = extractContent(parseDocument(html), { url: FIXTURE_URL, formats: ['text'], onlyMainContent: true });
    expect(r.text).toBe(
      'Intro paragraph of the page, long enough to be content.\n\nStreamed paragraph that belongs in the middle.\n\nClosing paragraph that comes after the streamed part.',
    );
  });

  it('places React\'s completed segments in their <template id="P:n"> placeholders too', () => {
    // $RS("S:2","P:2") fills a segment's placeholder, as $RC("B:1","S:1") fills a boundary's.
    const html = `<html><body><main><h1>Trailhead 28 L Daypack</h1><template id="P:2"></template>
      <p>Closing paragraph that comes after the streamed part.</p></main>
      <div hidden id="S:2"><p>The product's details, streamed once the server had them.</p></div>
      <script>$RS("S:2","P:2")</script></body></html>`;
    const r = extractContent(parseDocument(html), { url: FIXTURE_URL, formats: ['text'], onlyMainContent: false });
    expect(r.text).toBe(
      "Trailhead 28 L Daypack\n\nThe product's details, streamed once the server had them.\n\nClosing paragraph that comes after the streamed part.",
    );
  });

  it('renders plain text with paragraph breaks and list items on their own lines', () => {
    const r = extractContent(parseDocument(fixtureHtml('product-page')), {
      url: FIXTURE_URL,
      formats: ['text'],
      onlyMainContent: true,
    });
    expect(r.text).toBe(
      [
        'Trailhead 28 L Daypack',
        '',
        '$129.00',
        '',
        'A light, roomy pack for full days on the trail. The back panel is ventilated mesh over a steel frame, so the load sits close without trapping heat, and the hip belt carries most of the weight.',
        '',
        '28 litre main compartment with a clamshell zip',
        'Hydration sleeve for a 3 litre reservoir',
        'Recycled 210D ripstop nylon, PFC-free coating',
        'Weight: 1.1 kg',
      ].join('\n'),
    );
  });
  it('removes a banner shorter than its limit, counting its text across nodes, and keeps one that reaches it', () => {
    // The banner's text in pieces of up to 100 characters over nested elements.
    const banner = (chars: number) => {
      const pieces: string[] = [];
      for (let left = chars; left > 0; left -= 100)
        pieces.push(`<div><span>${'x'.repeat(Math.min(100, left))}</span></div>`);
      return `<div class="site-modal">${pieces.join('')}</div>`;
    };
    const text = (chars: number) =>
      extractContent(
        parseDocument(
          `<html><body><main><p>The article, long enough to be read as the page's content here.</p></main>${banner(chars)}</body></html>`,
        ),
        { url: FIXTURE_URL, formats: ['text'], onlyMainContent: false },
      ).text!;
    expect(text(1499)).not.toContain('xxx');
    expect(text(1500)).toContain('xxx');
  });
});
