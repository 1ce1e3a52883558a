import type { IncomingHttpHeaders } from "node:http";
import autocannon from "autocannon";
import { BENCH_USER } from "./calpress";
import { beginAll, endAll, Meter, RunFigures } from "./meters";
import { onCleanup } from "./proc";
import { leanLoad } from "./lean-load";
import { BenchRequest, isConstant, requestStream, Workload } from "./workloads";

/**
 * Drives one workload against one server with autocannon's programmatic
 * API: a warm-up run whose numbers are thrown away, then the measured run.
 *
 * Latencies come from autocannon's per-response event (float milliseconds
 * from process.hrtime) rather than from its summary histogram, which keeps
 * whole milliseconds only: a 2 ms target needs finer steps than that.
 * Only 2xx responses count towards throughput and latency, so a route that
 * fails fast cannot look fast; everything else is counted and reported.
 */
export interface DriveStats {
  /** 2xx responses per second of the measured run. */
  rps: number;
  /** All responses per second, whatever their status. */
  rpsAll: number;
  p50: number;
  p99: number;
  /** Responses received (any status). */
  responses: number;
  ok: number;
  non2xx: number;
  /** Connection errors, including timeouts. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** A few non-2xx answers ("500 POST /path: body…"), so that a flagged result says what went wrong. */
  errorSamples: string[];
  seconds: number;
  /** What the run's meters read (CPU, PostgreSQL's time), per request or per core. */
  figures: RunFigures;
}

export interface DriveOptions {
  /** http://host:port */
  origin: string;
  /**
   * The Host header to send instead of the origin's: the public name the
   * processes behind a front answer under (answers, their keys and ETags
   * name the host they were asked on).
   */
  host?: string;
  workload: Workload;
  seed: number;
  connections: number;
  duration: number;
  warmup: number;
  /** Readings taken right around the measured run (after the warm-up): bench/meters.ts. */
  meters?: readonly Meter[];
  /** The load generator: autocannon (default), or bench/lean-load.ts where the generator's own CPU must stay small (scale-out). */
  generator?: "autocannon" | "lean";
}

const AUTH = `Basic ${Buffer.from(`${BENCH_USER.login}:${BENCH_USER.password}`).toString("base64")}`;

/** The autocannon request for one of ours. Headers are always a fresh object: autocannon writes Content-Length into it. */
function toAutocannon(base: autocannon.Request, r: BenchRequest, host: string | undefined): autocannon.Request {
  const headers: IncomingHttpHeaders = host !== undefined ? { host } : {};
  if (r.body !== undefined) headers["content-type"] = "application/json";
  if (r.auth) headers.authorization = AUTH;
  if (r.headers) Object.assign(headers, r.headers);
  return { ...base, method: r.method, path: r.path, headers, body: r.body };
}

/** What setupRequest leaves in autocannon's per-connection context for onResponse to name the failing request. */
interface SentContext {
  sent?: string;
}

const MAX_SAMPLES = 5;

function requestsFor(workload: Workload, seed: number, samples: string[] | undefined, host: string | undefined): autocannon.Request[] {
  const next = requestStream(workload, seed);
  // autocannon collects every response body anyway, so looking at the failed ones costs nothing extra.
  const onResponse = (status: number, body: string, context: object): void => {
    if (!samples || answered(workload, status) || samples.length >= MAX_SAMPLES) return;
    const sent = (context as SentContext).sent ?? "?";
    const line = `${status} ${sent}: ${body.replace(/\s+/g, " ").slice(0, 240)}`;
    if (!samples.includes(line)) samples.push(line);
  };
  if (isConstant(workload)) {
    // One prebuilt request, no per-request setup: the cheapest load generator for fixed URLs.
    const r = next();
    return [
      {
        method: r.method,
        path: r.path,
        ...(r.headers || host !== undefined ? { headers: { ...(host !== undefined ? { host } : {}), ...r.headers } } : {}),
        onResponse: (status: number, body: string, context: object) => {
          (context as SentContext).sent = `${r.method} ${r.path}`;
          onResponse(status, body, context);
        },
      },
    ];
  }
  return [
    {
      setupRequest: (req: autocannon.Request, context: object) => {
        const r = next();
        (context as SentContext).sent = `${r.method} ${r.path}`;
        return toAutocannon(req, r, host);
      },
      onResponse,
    },
  ];
}

interface RunResult {
  latencies: Float64Array;
  count: number;
  /** What the generator reports of the run itself. */
  result: { duration: number; errors: number; timeouts: number };
  statusCodes: Record<string, number>;
  errorSamples: string[];
}

/** Latencies of the answered responses, kept in a growing array (a run may see a million). */
class Latencies {
  values = new Float64Array(1 << 16);
  count = 0;
  add(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }
}

async function runLean(opts: DriveOptions, seconds: number, seed: number, record: boolean): Promise<RunResult> {
  const latencies = new Latencies();
  const statusCodes: Record<string, number> = {};
  const errorSamples: string[] = [];
  const run = await leanLoad({
    origin: opts.origin,
    host: opts.host,
    connections: opts.connections,
    seconds,
    timeoutSeconds: 10,
    next: requestStream(opts.workload, seed),
    authorization: AUTH,
    wantBody: (status) => record && !answered(opts.workload, status) && errorSamples.length < MAX_SAMPLES,
    onResponse: (status, ms, body, sent) => {
      if (!record) return;
      statusCodes[status] = (statusCodes[status] ?? 0) + 1;
      if (answered(opts.workload, status)) {
        latencies.add(ms);
        return;
      }
      if (body === null || errorSamples.length >= MAX_SAMPLES) return;
      const line = `${status} ${sent.method} ${sent.path}: ${body.toString("utf8").replace(/\s+/g, " ").slice(0, 240)}`;
      if (!errorSamples.includes(line)) errorSamples.push(line);
    },
  });
  return {
    latencies: latencies.values.subarray(0, latencies.count),
    count: latencies.count,
    result: { duration: run.seconds, errors: run.errors, timeouts: run.timeouts },
    statusCodes,
    errorSamples,
  };
}

function runOnce(opts: DriveOptions, seconds: number, seed: number, record: boolean): Promise<RunResult> {
  if (opts.generator === "lean") return runLean(opts, seconds, seed, record);
  return new Promise((resolve, reject) => {
    const latencies = new Latencies();
    const statusCodes: Record<string, number> = {};
    const errorSamples: string[] = [];
    // Registered per run, so it is the newest cleanup and runs first: a Ctrl-C stops the load
    // before the servers are shut down, not while they are still being hammered.
    let instance: autocannon.Instance | undefined;
    const unregister = onCleanup("autocannon run", () => instance?.stop());
    instance = autocannon(
      {
        url: opts.origin,
        connections: opts.connections,
        duration: seconds,
        pipelining: 1,
        timeout: 10,
        requests: requestsFor(opts.workload, seed, record ? errorSamples : undefined, opts.host),
      },
      (err: Error | null, result: autocannon.Result) => {
        unregister();
        if (err) reject(err);
        else
          resolve({
            latencies: latencies.values.subarray(0, latencies.count),
            count: latencies.count,
            result: { duration: result.duration, errors: result.errors, timeouts: result.timeouts },
            statusCodes,
            errorSamples,
          });
      },
    );
    if (record) {
      instance.on("response", (_client: autocannon.Client, status: number, _bytes: number, ms: number) => {
        statusCodes[status] = (statusCodes[status] ?? 0) + 1;
        if (answered(opts.workload, status)) latencies.add(ms);
      });
    }
  });
}

/** Whether a response counts: a 2xx, or the workload's own status (304 for revalidation). */
function answered(workload: Workload, status: number): boolean {
  return workload.okStatus !== undefined ? status === workload.okStatus : status >= 200 && status < 300;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

export async function drive(opts: DriveOptions): Promise<DriveStats> {
  if (opts.warmup > 0) await runOnce(opts, opts.warmup, opts.seed + 7919, false);
  const meters = opts.meters ?? [];
  await beginAll(meters);
  const { latencies, result, statusCodes, errorSamples } = await runOnce(opts, opts.duration, opts.seed, true);
  const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  // Read before anything else runs (sorting a second's latencies takes a while of the generator's CPU).
  const figures = await endAll(meters, { requests: responses });
  const sorted = latencies.slice().sort();
  const ok = sorted.length;
  const seconds = result.duration > 0 ? result.duration : opts.duration;
  return {
    rps: ok / seconds,
    rpsAll: responses / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    responses,
    ok,
    non2xx: responses - ok,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    errorSamples,
    seconds,
    figures,
  };
}
