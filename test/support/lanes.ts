/**
 * Independent slow jobs of a test file (child processes, installs), run a
 * few at a time instead of one after another.
 *
 * A CLI child spends most of its ~1 s starting Node and loading the sources
 * through tsx, on one core: on the 2-core CI machine two such children take
 * about the time of one. Results are judged where they were judged before,
 * each by its own test.
 */

/** Default width: the CI machine's cores. */
export const LANES = 2;

/** Runs the jobs given to it at most `n` at a time, in the order given. */
export function lanes(n = LANES): <T>(job: () => Promise<T>) => Promise<T> {
  let free = n;
  const queue: Array<() => void> = [];
  return async <T>(job: () => Promise<T>): Promise<T> => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => queue.push(resolve));
    try {
      return await job();
    } finally {
      const next = queue.shift();
      if (next) next();
      else free += 1;
    }
  };
}

/**
 * A job started now and awaited later (by a test): its failure is reported
 * where it is awaited, not as an unhandled rejection meanwhile.
 */
export function started<T>(job: Promise<T>): Promise<T> {
  job.catch(() => undefined);
  return job;
}

/**
 * Jobs by name, all started by `start()` (call it in a `before`), `n` at a
 * time; `get(name)` is the named job's result for its test to judge.
 */
export function upFront<T>(jobs: ReadonlyArray<readonly [string, () => Promise<T>]>, n = LANES): { start(): void; get(name: string): Promise<T>; settled(): Promise<unknown> } {
  const results = new Map<string, Promise<T>>();
  return {
    start() {
      const queue = lanes(n);
      for (const [name, job] of jobs) results.set(name, started(queue(job)));
    },
    get(name) {
      const result = results.get(name);
      if (result === undefined) throw new Error(`no job named ${name} was started`);
      return result;
    },
    settled: () => Promise.allSettled(results.values()),
  };
}
