import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The check that a stored answer names every cache tag it depends on
 * (`RestRequest.dependsOn`, lib/cache/answer-store.ts). A tag it misses is
 * a stored answer that outlives a change of what it shows, which no test
 * of the answer itself would notice until the change is made.
 *
 * With the audit on (`CALPRESS_TAG_AUDIT=1`, set by the test suites), the
 * handler of every endpoint with `store: true` runs in an audit, and so
 * does one with `cache: true`, judged only if it called `reuseWhile` (its
 * in-memory answer then outlives writes on the strength of its tags): each post
 * and term the engine loads meanwhile is noted (`noteTagsRead`, in the
 * engine's load paths), and when the handler ends, answered or threw, any
 * noted tag it did not name fails the request with an error (a logged 500).
 * Off, it costs one environment read per stored endpoint's build.
 */
const audits = new AsyncLocalStorage<Set<number>>();

/** Whether handlers of stored endpoints are audited (tests). */
export function tagAuditOn(): boolean {
  return process.env.CALPRESS_TAG_AUDIT === "1";
}

/** Notes tags the running audit's handler read (nothing without an audit). */
export function noteTagsRead(tags: Iterable<number>): void {
  const read = audits.getStore();
  if (read !== undefined) for (const tag of tags) read.add(tag);
}

/**
 * Runs `work` with its reads not noted: the reads a kept answer's reuse
 * check (`RestRequest.reuseWhile`) makes again every time the answer is
 * reused (a list's ids and total), which the answer need not name.
 */
export function readAgainByCheck<T>(work: () => Promise<T>): Promise<T> {
  return audits.exit(work);
}

/** A handler read a post or term it did not name. */
export class TagAuditError extends Error {
  constructor(what: string, readonly missing: readonly number[]) {
    super(`${what} read cache tags it did not name (dependsOn): ${missing.join(", ")}`);
    this.name = "TagAuditError";
  }
}

/**
 * Runs `work` (a handler) in an audit. `named` is the set the handler names
 * its tags in, read once it ended: a tag read and not named throws
 * TagAuditError, also when `work` threw (a refusal depends on what it read
 * too), if `judged()` (asked once it ended) says the answer relies on them.
 */
export async function audited<T>(what: string, named: ReadonlySet<number>, work: () => Promise<T>, judged: () => boolean = () => true): Promise<T> {
  const read = new Set<number>();
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await audits.run(read, work) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const missing = [...read].filter((tag) => !named.has(tag)).sort((a, b) => a - b);
  if (missing.length > 0 && judged()) throw new TagAuditError(what, missing);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
