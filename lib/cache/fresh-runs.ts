/**
 * Runs of one piece of work (a revision check, a sync) batched without
 * giving up freshness: a caller never gets the result of a run that started
 * before it asked (a commit could have landed in between); it waits for the
 * next run, which starts when the running one ends and answers every caller
 * that arrived meanwhile. Under load one run serves many requests.
 */
export class FreshRuns<T> {
  private running: Promise<T> | null = null;
  private next: Promise<T> | null = null;

  /** `failed`: called when a run fails (before its callers see the error), to forget what it left half done. */
  constructor(
    private readonly work: () => Promise<T>,
    private readonly failed?: () => void,
  ) {}

  /** The result of a run that started after this call. */
  after(): Promise<T> {
    if (this.next !== null) return this.next;
    if (this.running === null) return this.start();
    const next = this.running.then(
      () => this.start(),
      () => this.start(),
    );
    this.next = next;
    return next;
  }

  private start(): Promise<T> {
    this.next = null;
    const run = this.work();
    this.running = run;
    const clear = (): void => {
      if (this.running === run) this.running = null;
    };
    run.then(clear, () => {
      clear();
      this.failed?.();
    });
    return run;
  }
}
