// Shapes of the API answers the app reads (the OpenAPI document at /v1/docs is the reference).

export interface Project {
  id: string;
  name: string;
  seed: string;
  host: string;
  schedule: 'manual' | 'daily' | 'weekly';
  retention: string;
  config: { version: number } & Record<string, Record<string, unknown>>;
  createdAt: string;
  updatedAt: string;
}

export interface Run {
  id: string;
  projectId: string;
  status: 'queued' | 'running' | 'done' | 'error' | 'cancelled';
  trigger: string;
  progress: { done: number; total: number; queued: number };
  counts: Record<string, number>;
  creditsUsed: number;
  stop: string | null;
  engines?: Record<string, number>;
  log?: { at: string; message: string }[];
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface SelectorBreak {
  field: string;
  selector: string;
  repointed: { selector: string; confidence: number; value: string } | null;
}

export interface ChangeEntry {
  id: string;
  url: string;
  kind: 'added' | 'removed' | 'modified' | 'same' | 'withheld' | 'unverified' | 'skipped';
  reviewed: boolean;
  reason?: string;
  wordsAdded: number;
  wordsRemoved: number;
  section: string | null;
  volatile: boolean;
  volatileBlocks: number;
  fields: string[];
  selectorBreaks: SelectorBreak[];
  movedTo?: string;
  movedFrom?: string;
}

export interface ChangeRecord {
  id: string;
  runId: string;
  baseline: string | null;
  counts: Record<string, number>;
  coverage: { verdict: boolean; read: number; expected: number; share: number; reason?: string };
  templateChanges: unknown[];
  digest: { summary: string; points: string[]; significant: boolean } | null;
  entries: ChangeEntry[];
  createdAt: string;
}

export interface PageRow {
  url: string;
  status: string;
  httpStatus: number | null;
  verdict: string | null;
  errorCode: string | null;
  words: number | null;
  credits: number;
  method: string | null;
  tier: string | null;
  depth?: number;
  foundVia?: string;
  inLinks?: number;
  orphan?: boolean;
  unlisted?: boolean;
  inSitemap?: boolean;
  reason?: string | null;
  language?: string | null;
  signals?: string[];
  warnings?: string[];
  head?: { title?: string | null; description?: string | null; canonical?: string | null } & Record<string, unknown>;
  fields?: Record<string, unknown>;
  markdown?: string;
  screenshot?: string;
  crawledAt?: string | null;
}

export interface JobEnvelope {
  id: string;
  kind: string;
  status: 'queued' | 'running' | 'done' | 'error' | 'cancelled';
  progress: { done: number; total: number; queued: number };
  creditsUsed: number;
  counts: Record<string, number>;
  data: PageRow[];
  next: string | null;
  stop: string | null;
  error: unknown;
  createdAt?: string;
  projectId?: string;
  runId?: string;
}
