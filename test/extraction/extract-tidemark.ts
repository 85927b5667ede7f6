// eval.mjs extractor: HTML on stdin, PAGE_URL in the environment, main-content markdown out.
import { extractContent, parseDocument } from '../../libs/content/src/index.js';
import { readStdin } from './read-stdin.js';

const html = await readStdin();
const url = process.env.PAGE_URL || 'https://example.invalid/';
const result = extractContent(parseDocument(html), { url, formats: ['markdown'], onlyMainContent: true });
process.stdout.write(result.markdown ?? '');
