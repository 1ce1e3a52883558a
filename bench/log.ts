/**
 * Progress lines on stderr, prefixed with the seconds since the harness
 * started: stdout stays free, and a long run shows where the time went.
 */
const started = Date.now();

export function elapsed(): string {
  return `${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s`;
}

export function log(line: string): void {
  process.stderr.write(`[bench ${elapsed()}] ${line}\n`);
}

export function fmt(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "n/a";
}
