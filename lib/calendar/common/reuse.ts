/**
 * The `RestRequest.reuseWhile` check of a list page: `find`, run again as
 * of then, gives the same ids in the same order and the same total.
 *
 * Make `find` outside the handler (a function of its own that closes over
 * its arguments only): the check is kept with the answer in memory, and a
 * closure made in the handler would keep the handler's whole scope alive
 * with it (the request, the page's record texts), outside the cache's
 * bound on bytes.
 */
export function samePage(find: () => Promise<{ readonly ids: readonly number[]; readonly total: number }>, page: { readonly ids: readonly number[]; readonly total: number }): () => Promise<boolean> {
  const { ids, total } = page;
  return async () => {
    const now = await find();
    return now.total === total && now.ids.length === ids.length && now.ids.every((id, i) => id === ids[i]);
  };
}
