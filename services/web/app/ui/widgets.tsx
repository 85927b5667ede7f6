import { useState, type ReactNode } from 'react';
import type { PagedLoad } from './load';
import { Empty, ErrorNote, Loading } from './states';

export const CopyButton = ({ text, label = 'Copy' }: { text: string; label?: string }) => {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <button type="button" onClick={() => void copy()} aria-live="polite">
      {copied ? 'Copied' : label}
    </button>
  );
};

export const Badge = ({ kind, children }: { kind: string; children?: ReactNode }) => (
  <span className={`badge badge-${kind.replace(/[^a-z0-9_-]/gi, '')}`}>{children ?? kind}</span>
);

/** A paged list: its loading, empty and error states, and "Load more" while `next` is set. */
export function PagedView<T>({
  list,
  empty,
  children,
}: {
  list: PagedLoad<T>;
  empty: ReactNode;
  children: (rows: T[]) => ReactNode;
}) {
  if (list.error && !list.rows.length) return <ErrorNote error={list.error} />;
  if (list.loading && !list.rows.length) return <Loading />;
  if (!list.rows.length) return <Empty>{empty}</Empty>;
  return (
    <>
      {children(list.rows)}
      <ErrorNote error={list.error} />
      {list.hasMore && (
        <button type="button" className="more" disabled={list.loading} onClick={() => void list.loadMore()}>
          {list.loading ? 'Loading…' : 'Load more'}
        </button>
      )}
    </>
  );
}

/** A progress bar with its figures in words (the bar alone says nothing to a screen reader). */
export const Progress = ({ done, total, label }: { done: number; total: number; label: string }) => (
  <div className="progress">
    <progress max={Math.max(total, 1)} value={done} aria-label={label} />
    <span>
      {done} of {total || '?'} pages
    </span>
  </div>
);
