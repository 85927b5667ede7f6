import type { HttpClient } from './http.js';

/** A page of a list: its rows and the ready-made URL of the page after it (null at the end). */
export interface Paged<T> {
  data: T[];
  next: string | null;
  cursor?: string | null;
}

/**
 * Every row of a paged list: the first page, then each `next` the API gives, until it is null
 * or a page comes back empty.
 * A `next` pointing anywhere but this client's API root (a proxy rewrote the host) is not
 * followed with the key; the same call is repeated with its `cursor` instead.
 */
export async function* paginate<T>(
  http: HttpClient,
  first: () => Promise<Paged<T>>,
  again: (cursor: string) => Promise<Paged<T>>,
): AsyncGenerator<T, void, undefined> {
  let page = await first();
  for (;;) {
    yield* page.data;
    // A running job's list always has a `next` (where later rows will appear): an empty page
    // means nothing more for now, not a reason to ask again at once.
    if (!page.next || page.data.length === 0) return;
    if (http.isOwnUrl(page.next)) page = await http.getUrl<Paged<T>>(page.next);
    else if (page.cursor) page = await again(page.cursor);
    else return;
  }
}
