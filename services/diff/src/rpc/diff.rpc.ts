import { changeKindEnum, diffV1, markupChangeKindEnum } from '@tidemark/contracts';
import type { ChangeService, MarkupDiffView, PageDiffView } from '../changes/change.service.js';
import type { StoredChange, StoredEntry } from '../repositories/change.repository.js';

/** null → absent (proto3 optional): the gateway's mapper turns absent back into null. */
const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

const entryMessage = (e: StoredEntry): diffV1.ChangeEntry => ({
  id: e.id,
  url: e.url,
  kind: changeKindEnum.toProto(e.kind),
  reason: e.data.reason,
  wordsAdded: e.data.wordsAdded,
  wordsRemoved: e.data.wordsRemoved,
  section: opt(e.data.section),
  volatile: e.data.volatile,
  volatileBlocks: e.data.volatileBlocks,
  fields: e.data.fields,
  selectorBreaks: e.data.selectorBreaks.map((b) => ({
    field: b.field,
    selector: b.selector,
    repointed: opt(b.repointed),
  })),
  movedTo: e.data.movedTo,
  movedFrom: e.data.movedFrom,
  notify: e.data.notify,
  reviewed: e.reviewed,
});

export const changeRecordMessage = (stored: StoredChange): diffV1.ChangeRecord => ({
  id: stored.id,
  runId: stored.runId,
  baselineRunId: opt(stored.baselineRunId),
  // Records written before a count or figure existed read it as 0.
  counts: diffV1.ChangeCounts.fromPartial(stored.counts),
  coverage: diffV1.Coverage.fromPartial(stored.coverage),
  templateChanges: stored.templateChanges.map((t) => ({
    section: opt(t.section),
    before: opt(t.before),
    after: opt(t.after),
    pages: t.pages,
    urls: t.urls,
  })),
  digest: opt(stored.digest),
  createdAt: stored.createdAt,
  entries: stored.entries.map(entryMessage),
});

export const pageDiffMessage = (view: PageDiffView): diffV1.PageDiff => ({
  url: view.url,
  runId: view.runId,
  baselineRunId: opt(view.baseline),
  kind: changeKindEnum.toProto(view.kind),
  wordsAdded: view.wordsAdded,
  wordsRemoved: view.wordsRemoved,
  section: opt(view.section),
  sections: view.sections,
  hunks: view.hunks.map((h) => ({ ...h, section: opt(h.section) })),
});

export const markupDiffMessage = (view: MarkupDiffView): diffV1.MarkupDiff => ({
  url: view.url,
  runId: view.runId,
  baselineRunId: opt(view.baseline),
  changes: view.changes.map((c) => ({
    path: c.path,
    kind: markupChangeKindEnum.toProto(c.kind),
    attr: c.attr,
    before: opt(c.before),
    after: opt(c.after),
    volatile: c.volatile,
  })),
  truncated: view.truncated,
});

/** gRPC in: decode → change service → the typed answer. */
export const diffRpc = (changes: ChangeService) => ({
  getChanges: async (req: diffV1.GetChangesRequest) =>
    ({
      record: changeRecordMessage(await changes.get(req.workspaceId, req.projectId, req.runId || null)),
    }) satisfies diffV1.GetChangesResponse,
  reviewEntry: async (req: diffV1.ReviewEntryRequest) =>
    (await changes.review(
      req.workspaceId,
      req.projectId,
      req.entryId,
      req.reviewed,
    )) satisfies diffV1.ReviewEntryResponse,
  pageDiff: async (req: diffV1.PageDiffRequest) =>
    ({
      diff: pageDiffMessage(await changes.pageDiff(req.workspaceId, req.projectId, req.url, req.runId || null)),
    }) satisfies diffV1.PageDiffResponse,
  markupDiff: async (req: diffV1.MarkupDiffRequest) =>
    ({
      diff: markupDiffMessage(await changes.markupDiff(req.workspaceId, req.projectId, req.url, req.runId || null)),
    }) satisfies diffV1.MarkupDiffResponse,
});
