// What reads as noise on its face, before any history: text that changes on every render
// (timestamps, relative times, view counters, copyright years, labelled request ids), ad slots and
// rotating recommendation widgets. Plain dates and times in prose are *not* noise (an event
// moving from June 5 to June 12 is news), so a date is masked only with a time of day attached
// or after a cue such as "Last updated".

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const WEEKDAY = '(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\\.?';
const DATE = [
  '\\d{4}-\\d{2}-\\d{2}',
  '\\d{1,2}[./-]\\d{1,2}[./-]\\d{2,4}',
  `${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}`,
  `\\d{1,2}(?:st|nd|rd|th)?\\.?\\s+${MONTH}\\s+\\d{4}`,
].join('|');
const TIME =
  '\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?\\s*(?:[ap]\\.?m\\.?)?(?:\\s*(?:Z|UTC|GMT|[A-Z]{2,4}T|[+-]\\d{2}:?\\d{2}))?';
const UNIT = '(?:sec(?:ond)?s?|min(?:ute)?s?|h(?:ou)?rs?|hours?|days?|weeks?|months?|years?)';
const CUE =
  '(?:last\\s+updated|updated|last\\s+modified|modified|last\\s+checked|generated|rendered|fetched|retrieved|refreshed|as\\s+of|current\\s+time|server\\s+time|cached)';

/** One kind of volatile text; the kind is what the text is compared as. The gate is a cheap test that must pass first. */
interface VolatileRule {
  kind: string;
  gate: RegExp;
  pattern: RegExp;
}

const RULES: VolatileRule[] = [
  // A date with a time of day is a render or update stamp: "2025-01-02T10:15:02Z", "Jan 5, 2025, 10:22 AM".
  {
    kind: 'timestamp',
    gate: /\d:\d\d/,
    pattern: new RegExp(`(?:${WEEKDAY},?\\s+)?(?:${DATE})(?:,?\\s*(?:at\\s+)?|T)${TIME}`, 'gi'),
  },
  // After a cue any date or time is one: "Last updated: March 3, 2025", "as of 10:22".
  {
    kind: 'timestamp',
    gate: new RegExp(CUE, 'i'),
    pattern: new RegExp(`\\b${CUE}(?:\\s+(?:on|at))?:?\\s+(?:${WEEKDAY},?\\s+)?(?:${DATE}|${TIME})`, 'gi'),
  },
  { kind: 'timestamp', gate: /\d:\d\d:\d/, pattern: /\b\d{1,2}:\d{2}:\d{2}\b/g },
  {
    kind: 'relative-time',
    gate: /\bago\b|just\s+now/i,
    pattern: new RegExp(`\\b(?:(?:\\d+|an?|one|a\\s+few)\\s+${UNIT}\\s+ago|just\\s+now|moments?\\s+ago)\\b`, 'gi'),
  },
  {
    kind: 'counter',
    gate: /view|visit|reader|reads|plays|likes|shares|hits|impression|online|viewing|watching/i,
    pattern:
      /\b\d[\d,.\u00a0 ]*[kKmM]?\s*(?:views?|viewers?|page\s?views|visits?|visitors?|readers?|reads|plays|likes|shares|hits|impressions|(?:users?|people|members)\s+(?:are\s+)?(?:online|here|viewing|watching)|online\s+now|watching)\b/g,
  },
  {
    kind: 'duration',
    gate: /\bin\s+\d/i,
    pattern:
      /\b(?:generated|rendered|loaded|served|took)\s+in\s+\d+(?:\.\d+)?\s*(?:ms|milliseconds?|s|sec(?:onds?)?)\b/gi,
  },
  {
    kind: 'copyright',
    gate: /©|\(c\)|copyright/i,
    pattern: /(?:©|\(c\)|copyright)\s*(?:\d{4}\s*[-–—]\s*)?\d{4}/gi,
  },
  // Only with its label: a bare hash may be content (a release's commit, a checksum).
  {
    kind: 'request-id',
    gate: /id/i,
    pattern: /\b(?:request|trace|correlation|session|ray)[\s_-]?id:?\s*[\w-]{6,}/gi,
  },
];

export interface VolatileSpan {
  start: number;
  end: number;
  kind: string;
}

/** Non-overlapping volatile spans of a line of text, in order. */
export function volatileSpans(text: string): VolatileSpan[] {
  if (!/\d|\bago\b|just now/i.test(text)) return []; // every rule needs a digit, but relative times
  const spans: VolatileSpan[] = [];
  for (const rule of RULES) {
    if (!rule.gate.test(text)) continue;
    rule.pattern.lastIndex = 0;
    for (let m = rule.pattern.exec(text); m; m = rule.pattern.exec(text)) {
      if (m[0].length === 0) {
        rule.pattern.lastIndex++;
        continue;
      }
      spans.push({ start: m.index, end: m.index + m[0].length, kind: rule.kind });
    }
  }
  spans.sort((p, q) => p.start - q.start || q.end - p.end);
  const kept: VolatileSpan[] = [];
  for (const span of spans) {
    const last = kept.at(-1);
    if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
    else kept.push({ ...span });
  }
  return kept;
}

/** Text with each volatile span replaced by its kind: equal masks mean only noise changed. */
export function maskVolatile(text: string): string {
  const spans = volatileSpans(text);
  if (!spans.length) return text;
  let out = '';
  let pos = 0;
  for (const span of spans) {
    out += `${text.slice(pos, span.start)}⟨${span.kind}⟩`;
    pos = span.end;
  }
  return out + text.slice(pos);
}

/** A block labelled as advertising: whatever it shows, it rotates. */
export const AD_SLOT =
  /^\s*(?:advertisement|advertising|sponsored(?:\s+content)?|promoted|anzeige|publicité|publicidad|ad)\b/i;

/** Headings of widgets that rotate by design; the blocks under them are volatile. */
export const ROTATING_SECTION =
  /\b(?:trending(?:\s+now)?|popular\s+(?:now|today|this\s+week)|most\s+(?:read|viewed|popular|shared)|you\s+(?:may|might)\s+also\s+like|recommended(?:\s+for\s+you)?|related\s+(?:posts|articles|stories|products|content)|top\s+stories|what'?s\s+hot)\b/i;
