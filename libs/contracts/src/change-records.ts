import { ChangeKind, MarkupChangeKind } from './generated/tidemark/diff/v1/diff.js';
import { protoEnum } from './proto-enum.js';

/** What became of a page between a run and its baseline (spec: Change record). */
export const CHANGE_KINDS = ['added', 'removed', 'modified', 'same', 'withheld', 'unverified', 'skipped'] as const;
export type ChangeKindName = (typeof CHANGE_KINDS)[number];
export const changeKindEnum = protoEnum(ChangeKind, 'CHANGE_KIND', CHANGE_KINDS);

/** One change of the markup comparison. */
export const MARKUP_CHANGE_KINDS = ['added', 'removed', 'text', 'attr', 'moved'] as const;
export type MarkupChangeKindName = (typeof MARKUP_CHANGE_KINDS)[number];
export const markupChangeKindEnum = protoEnum(MarkupChangeKind, 'MARKUP_CHANGE_KIND', MARKUP_CHANGE_KINDS);
