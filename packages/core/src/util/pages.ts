/**
 * The one page-through loop over the stores' cursor pages (`{items, cursor}`, docs/api-conventions.md's
 * pager): every page in order, each read with the previous page's cursor, until a page has none.
 * A caller that needs only the first few pages breaks out of the loop.
 */
export async function* pagesOf<T>(read: (cursor: string | undefined) => Promise<{ items: T[]; cursor?: string }>): AsyncGenerator<T[]> {
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    yield page.items;
    cursor = page.cursor;
  } while (cursor);
}

/** Every item of every page, in order. */
export async function allOf<T>(read: (cursor: string | undefined) => Promise<{ items: T[]; cursor?: string }>): Promise<T[]> {
  const out: T[] = [];
  for await (const items of pagesOf(read)) out.push(...items);
  return out;
}
