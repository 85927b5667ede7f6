import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, nextPath, type Paged } from '../api';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload(): Promise<void>;
}

/** GETs `path` (null: nothing yet) and keeps the answer; a new path loads again. */
export const useLoad = <T>(path: string | null): Loaded<T> => {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const current = useRef(path);
  current.current = path;
  const reload = useCallback(async () => {
    if (path === null) return;
    setLoading(true);
    try {
      const body = await api.get<T>(path);
      if (current.current === path) {
        setData(body);
        setError(null);
      }
    } catch (err) {
      if (current.current === path) setError(err as ApiError);
    } finally {
      if (current.current === path) setLoading(false);
    }
  }, [path]);
  useEffect(() => {
    setData(undefined);
    void reload();
  }, [reload]);
  return { data, error, loading, reload };
};

export interface PagedLoad<T> {
  rows: T[];
  /** The first answer in full (lists carry more than rows: coverage, counts). */
  first: (Paged<T> & Record<string, unknown>) | undefined;
  error: ApiError | null;
  loading: boolean;
  hasMore: boolean;
  loadMore(): Promise<void>;
  reload(): Promise<void>;
}

/** A list answered page by page: the first page from `path`, the next ones from `next`. */
export const usePaged = <T>(path: string | null): PagedLoad<T> => {
  const first = useLoad<Paged<T> & Record<string, unknown>>(path);
  const [more, setMore] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    setMore([]);
    setError(null);
    setNext(first.data?.next ?? null);
  }, [first.data]);
  const loadMore = async () => {
    if (!next) return;
    setLoading(true);
    try {
      const page = await api.get<Paged<T>>(nextPath(next));
      setMore((rows) => [...rows, ...page.data]);
      setNext(page.next);
      setError(null);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setLoading(false);
    }
  };
  return {
    rows: [...(first.data?.data ?? []), ...more],
    first: first.data,
    error: first.error ?? error,
    loading: first.loading || loading,
    hasMore: next !== null,
    loadMore,
    reload: first.reload,
  };
};

/** Runs `fn` every `ms` while `active`. */
export const usePoll = (active: boolean, ms: number, fn: () => unknown): void => {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => void saved.current(), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
};
