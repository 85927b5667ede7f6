import { EXPORT_DATASETS, type ExportDataset, type ExportFormatName } from '@tidemark/contracts';
import { ValidationError } from '@tidemark/errors';

// The names are the contract's (EXPORT_DATASETS, EXPORT_FORMATS; proto enums Dataset, ExportFormat).
export type Dataset = ExportDataset;
export type Format = ExportFormatName;

/** The pages dataset's columns, in order: the page row without its bodies, and the link graph. */
export const PAGE_COLUMNS = [
  'url',
  'status',
  'httpStatus',
  'verdict',
  'errorCode',
  'shape',
  'warnings',
  'signals',
  'method',
  'tier',
  'credits',
  'billedAs',
  'climbedTo',
  'words',
  'language',
  'title',
  'description',
  'canonical',
  'reason',
  'widget',
  'solved',
  'exitBytes',
  'finalUrl',
  'crawledAt',
  'depth',
  'foundVia',
  'firstReferer',
  'inSitemap',
  'inLinks',
  'orphan',
  'unlisted',
  'origin',
  'head',
  'fields',
] as const;

export const MARKDOWN_COLUMNS = ['url', 'title', 'markdown'] as const;

export const CHANGE_COLUMNS = [
  'id',
  'url',
  'kind',
  'wordsAdded',
  'wordsRemoved',
  'section',
  'volatile',
  'volatileBlocks',
  'fields',
  'selectorBreaks',
  'reason',
  'movedFrom',
  'movedTo',
  'reviewed',
  'reviewedAt',
] as const;

export const SITEMAP_COLUMNS = ['url', 'lastmod', 'source', 'inSitemap', 'section'] as const;

export interface DatasetInfo {
  dataset: Dataset;
  formats: Format[];
  defaultFormat: Format;
  rows: string;
  fields: string[];
}

const table = (dataset: Dataset, rows: string, fields: readonly string[]): DatasetInfo => ({
  dataset,
  formats: ['jsonl', 'csv'],
  defaultFormat: 'jsonl',
  rows,
  fields: [...fields],
});

/** GET /v1/exports: every dataset, the formats it comes in, its default and its fields. */
export const CATALOG: DatasetInfo[] = [
  table(
    'pages',
    'every page row of the run, by URL, without bodies; depth, foundVia, firstReferer, inSitemap, inLinks, orphan and unlisted from the crawl’s link graph (null for a page the crawl did not find)',
    PAGE_COLUMNS,
  ),
  table('markdown', 'every page of the run with stored markdown, by URL', MARKDOWN_COLUMNS),
  table('changes', 'the entries of the run’s change record, by URL (404 until the run is compared)', CHANGE_COLUMNS),
  table(
    'fields',
    'every page of the run with extracted fields, by URL; csv has one column per field name found in the run (a field named url is the column fields.url), jsonl has {url, fields}',
    ['url', '<one per field>'],
  ),
  table(
    'sitemap',
    'the run’s usable pages (verdict ok or thin), by URL; lastmod is the date the page declares (JSON-LD dateModified, og:updated_time, JSON-LD datePublished), else null; source is how the crawl found it (seed, link, sitemap, feed); section is the first path segment ("/" for the root)',
    SITEMAP_COLUMNS,
  ),
  {
    dataset: 'llms',
    formats: ['txt'],
    defaultFormat: 'txt',
    rows: 'llms.txt: the run’s usable pages (verdict ok or thin) as links with their descriptions, grouped by first path segment, under the site’s title and the home page’s description',
    fields: [],
  },
  {
    dataset: 'llms-full',
    formats: ['txt'],
    defaultFormat: 'txt',
    rows: 'llms-full.txt: the markdown of every usable page, each under its title and a Source: line, in the order of llms',
    fields: [],
  },
];

const infoOf = (dataset: string): DatasetInfo => {
  const info = CATALOG.find((d) => d.dataset === dataset);
  if (!info) throw new ValidationError(`dataset: unknown dataset "${dataset}"; use ${EXPORT_DATASETS.join(', ')}`);
  return info;
};

/** The dataset and format asked for, checked together; an empty format is the dataset's default. */
export const resolveFormat = (dataset: string, format: string): { dataset: Dataset; format: Format } => {
  const info = infoOf(dataset);
  if (!format) return { dataset: info.dataset, format: info.defaultFormat };
  if (!(info.formats as string[]).includes(format)) {
    throw new ValidationError(
      `format: dataset ${info.dataset} comes as ${info.formats.join(' or ')}, not ${JSON.stringify(format)}`,
    );
  }
  return { dataset: info.dataset, format: format as Format };
};
