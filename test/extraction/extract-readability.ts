// eval.mjs extractor for the baseline: Mozilla Readability on linkedom, Turndown markdown out
// (the body's text when Readability finds no article).
import { readabilityMarkdown } from '../../libs/content/test/support/readability-baseline.js';
import { readStdin } from './read-stdin.js';

process.stdout.write(readabilityMarkdown(await readStdin()));
