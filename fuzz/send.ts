/**
 * Sends a wire request with node:http, which (unlike fetch) lets the fuzzer
 * choose every byte: any method token, any content type, a body that lies
 * about its encoding, a source address.
 */
import http from "node:http";

export interface WireResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface SendTarget {
  host: string;
  port: number;
}

export interface SendRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  localAddress?: string;
}

const agents = new Map<string, http.Agent>();

function agentFor(localAddress: string | undefined): http.Agent {
  const key = localAddress ?? "";
  let agent = agents.get(key);
  if (!agent) {
    agent = new http.Agent({ keepAlive: true, maxSockets: 16, localAddress });
    agents.set(key, agent);
  }
  return agent;
}

/** Closes the kept-alive sockets (so a process or test can end). */
export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

export function sendRequest(target: SendTarget, req: SendRequest, timeoutMs: number): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body) headers["content-length"] = req.body.length;
    const r = http.request(
      { host: target.host, port: target.port, method: req.method, path: req.path, headers, agent: agentFor(req.localAddress), localAddress: req.localAddress },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on("error", reject);
    if (req.body) r.end(req.body);
    else r.end();
  });
}
