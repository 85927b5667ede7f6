// A small router over the History API: the app has a dozen screens and needs only paths,
// parameters and query strings, so no routing library is brought in.
import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());
window.addEventListener('popstate', notify);

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};
const snapshot = () => window.location.pathname + window.location.search;

export const navigate = (to: string, opts: { replace?: boolean } = {}): void => {
  if (to === snapshot()) return;
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.scrollTo(0, 0);
  notify();
};

export interface Location {
  path: string;
  query: URLSearchParams;
}

export const useLocation = (): Location => {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  return { path: url.pathname, query: url.searchParams };
};

/** Matches `/projects/:id/pages` against a path; answers the parameters or null. */
export const match = (pattern: string, path: string): Record<string, string> | null => {
  const trim = (p: string) => (p.length > 1 ? p.replace(/\/$/, '') : p);
  const want = trim(pattern).split('/');
  const got = trim(path).split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i]!.startsWith(':')) params[want[i]!.slice(1)] = decodeURIComponent(got[i]!);
    else if (want[i] !== got[i]) return null;
  }
  return params;
};

/** A link the router follows without reloading the page (a modified click opens a tab as usual). */
export const Link = ({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) => {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} {...rest} onClick={onClick} />;
};

/** Sets the document title (screen readers announce it when the screen changes). */
export const useTitle = (title: string): void => {
  useEffect(() => {
    document.title = `${title} · Tidemark`;
  }, [title]);
};
