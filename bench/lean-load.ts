import net from "node:net";
import type { BenchRequest } from "./workloads";

/**
 * A minimal HTTP/1.1 load generator: keep-alive connections, one request in
 * flight on each, responses framed by Content-Length or chunked encoding.
 *
 * The scale-out comparison (`--workers`) runs it instead of autocannon. On
 * the 2 cores the generator's CPU is taken from the workers it measures:
 * autocannon in the harness spent about half of what a cheap calpress
 * answer takes, which capped what a second worker could show. This one
 * parses only what framing needs, reads into one buffer per connection and
 * keeps a body only when the caller wants it (a failed request's sample).
 */
export interface LeanLoadOptions {
  /** http://host:port */
  origin: string;
  /** Host header (default: the origin's host). */
  host?: string;
  connections: number;
  seconds: number;
  /** A request with no answer for this long is counted as a timeout and its connection replaced. */
  timeoutSeconds: number;
  next: () => BenchRequest;
  /** Authorization header value for requests with `auth`. */
  authorization: string;
  /** Whether to keep the body of a response with this status for `onResponse`. */
  wantBody: (status: number) => boolean;
  onResponse: (status: number, ms: number, body: Buffer | null, sent: BenchRequest) => void;
}

export interface LeanLoadResult {
  /** Seconds from the first request to the stop. */
  seconds: number;
  errors: number;
  timeouts: number;
}

const CRLFCRLF = Buffer.from("\r\n\r\n");
const READ_BUFFER_BYTES = 64 * 1024;
const NO_BODY = new Set([204, 304]);

function requestBytes(r: BenchRequest, host: string, authorization: string): Buffer {
  let head = `${r.method} ${r.path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n`;
  if (r.auth) head += `Authorization: ${authorization}\r\n`;
  for (const [name, value] of Object.entries(r.headers ?? {})) head += `${name}: ${value}\r\n`;
  const body = r.body !== undefined ? Buffer.from(r.body) : null;
  if (body) head += `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
  head += "\r\n";
  return body ? Buffer.concat([Buffer.from(head, "latin1"), body]) : Buffer.from(head, "latin1");
}

/** The value of a header in a head (lower-cased latin1 text), or null. */
function header(head: string, name: string): string | null {
  const at = head.indexOf(`\r\n${name}:`);
  if (at < 0) return null;
  const end = head.indexOf("\r\n", at + 2);
  return head.slice(at + name.length + 3, end < 0 ? undefined : end).trim();
}

/** Where a chunked body ends in `buf` from `from` (the index past the final CRLF), -1 when more bytes are needed, -2 when a chunk size is malformed. */
function chunkedEnd(buf: Buffer, from: number): number {
  let at = from;
  for (;;) {
    const line = buf.indexOf("\r\n", at, "latin1");
    if (line < 0) return -1;
    const size = Number.parseInt(buf.toString("latin1", at, line), 16);
    // Not a number (or a negative one, which would send this loop backwards): nothing to frame by.
    if (!(size >= 0)) return -2;
    if (size === 0) {
      // No trailers are sent to us: the last chunk is followed by one empty line.
      return buf.length >= line + 4 ? line + 4 : -1;
    }
    at = line + 2 + size + 2;
    if (at > buf.length) return -1;
  }
}

/** The body of a chunked response, for samples only. */
function unchunk(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const line = buf.indexOf("\r\n", at, "latin1");
    const size = Number.parseInt(buf.toString("latin1", at, line), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(buf.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}

export function leanLoad(opts: LeanLoadOptions): Promise<LeanLoadResult> {
  const url = new URL(opts.origin);
  const port = Number(url.port || 80);
  const hostname = url.hostname;
  const host = opts.host ?? url.host;
  const timeoutMs = opts.timeoutSeconds * 1000;
  let errors = 0;
  let timeouts = 0;
  let running = true;
  const started = performance.now();

  class Connection {
    socket: net.Socket | null = null;
    sent: BenchRequest | null = null;
    at = 0;
    /** Bytes of the response read so far while its head or a chunked body is incomplete (a head is read whole). */
    pending: Buffer | null = null;
    /** The response being read once its head is known. */
    status = 0;
    closeAfter = false;
    /** Body bytes still to come (Content-Length framing); -1: chunked, kept in `pending`. */
    remaining = 0;
    /** The body's bytes, kept only when the caller wants them. */
    body: Buffer[] | null = null;
    inBody = false;

    /**
     * Every read lands in this one buffer (net's `onread`), instead of a new Buffer per read: in the harness, whose
     * heap holds the catalog, the garbage of tens of megabytes a second read made half its own time collection.
     * What must outlive a read (a partial head, a kept body) is copied out of it.
     */
    readonly readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);

    open(): void {
      const s = net.connect({ port, host: hostname, onread: { buffer: this.readBuffer, callback: (n) => this.read(n) } });
      s.setNoDelay(true);
      this.socket = s;
      this.pending = null;
      this.inBody = false;
      s.on("connect", () => this.send());
      s.on("error", () => undefined);
      s.on("close", (hadError: boolean) => {
        if (this.socket !== s) return;
        this.socket = null;
        if (!running) return;
        // A connection lost with a request in flight, or one that failed (refused, reset), is an error: autocannon counts
        // every socket error. Once: the connections this client ends itself (a timeout, Connection: close) have none.
        if (this.sent !== null || hadError) errors++;
        this.sent = null;
        setTimeout(() => running && this.open(), 10);
      });
    }

    send(): void {
      if (!running || this.socket === null) return;
      const r = opts.next();
      this.sent = r;
      this.at = performance.now();
      this.socket.write(requestBytes(r, host, opts.authorization));
    }

    /** Bytes read into the read buffer; true: keep reading (false would pause the socket). */
    read(n: number): boolean {
      this.data(this.readBuffer.subarray(0, n));
      return true;
    }

    /** A response this client cannot frame: one error, and the connection replaced (not counted again when it closes). */
    fail(): void {
      errors++;
      this.sent = null;
      this.socket?.destroy();
    }

    data(chunk: Buffer): void {
      if (!this.inBody) {
        const buf = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
        const headEnd = buf.indexOf(CRLFCRLF);
        if (headEnd < 0) {
          // A copy: `chunk` is the read buffer, which the next read overwrites.
          this.pending = buf === chunk ? Buffer.from(chunk) : buf;
          return;
        }
        this.pending = null;
        const head = buf.toString("latin1", 0, headEnd).toLowerCase();
        this.status = Number(head.slice(9, 12));
        this.closeAfter = header(head, "connection") === "close";
        this.body = opts.wantBody(this.status) ? [] : null;
        this.inBody = true;
        const rest = buf.subarray(headEnd + 4);
        if (NO_BODY.has(this.status)) this.remaining = 0;
        else {
          const length = header(head, "content-length");
          if (length !== null) this.remaining = Number(length);
          else if (header(head, "transfer-encoding")?.includes("chunked")) {
            this.remaining = -1;
            this.pending = Buffer.alloc(0);
          } else {
            // Framed by the connection's end: not something calpress sends.
            this.fail();
            return;
          }
        }
        if (rest.length === 0 && this.remaining !== 0) return;
        chunk = rest;
      }
      if (this.remaining === -1) {
        const buf = Buffer.concat([this.pending as Buffer, chunk]);
        const end = chunkedEnd(buf, 0);
        if (end === -2) {
          // Thrown here, this would end the whole run (a socket's data handler has no caller to catch it).
          this.fail();
          return;
        }
        if (end < 0) {
          this.pending = buf;
          return;
        }
        this.pending = null;
        this.body?.push(unchunk(buf.subarray(0, end)));
      } else {
        // Only the count of a body is needed: its bytes are copied only when kept.
        const take = Math.min(chunk.length, this.remaining);
        this.body?.push(Buffer.from(chunk.subarray(0, take)));
        this.remaining -= take;
        if (this.remaining > 0) return;
      }
      this.inBody = false;
      const sent = this.sent as BenchRequest;
      this.sent = null;
      const ms = performance.now() - this.at;
      opts.onResponse(this.status, ms, this.body === null ? null : Buffer.concat(this.body), sent);
      this.body = null;
      if (this.closeAfter) {
        this.socket?.destroy();
        return;
      }
      this.send();
    }
  }

  const connections = Array.from({ length: opts.connections }, () => new Connection());
  for (const c of connections) c.open();
  // One sweep for every connection's timeout, instead of a timer per request.
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const c of connections) {
      if (c.sent !== null && now - c.at > timeoutMs) {
        timeouts++;
        errors++;
        c.sent = null;
        c.socket?.destroy();
      }
    }
  }, Math.min(500, timeoutMs));
  return new Promise((resolve) => {
    setTimeout(() => {
      running = false;
      clearInterval(sweep);
      const seconds = (performance.now() - started) / 1000;
      // Answers still in flight are not counted (as autocannon's stop does).
      for (const c of connections) c.socket?.destroy();
      resolve({ seconds, errors, timeouts });
    }, opts.seconds * 1000);
  });
}
