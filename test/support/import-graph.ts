/** Import graphs of source files, for the structure tests. */
import fs from "node:fs";
import path from "node:path";

/** Every circle of files (strongly connected components of more than one file, or a file importing itself). */
export function circles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return found;
}

/**
 * Every `.ts` file under `root` (relative paths) and the files it imports by
 * relative path; `withTypes` false leaves out `import type` / `export type`.
 */
export function sourceGraph(root: string, withTypes: boolean): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".ts")) files.push(full);
    }
  };
  walk(root);
  const known = new Set(files);
  const resolve = (from: string, spec: string): string | undefined => {
    const base = path.resolve(path.dirname(from), spec);
    return [`${base}.ts`, path.join(base, "index.ts")].find((f) => known.has(f));
  };
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const deps: string[] = [];
    for (const m of fs.readFileSync(file, "utf8").matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?\bfrom\s*"(\.[^"]*)"/gms)) {
      if (m[1] !== undefined && !withTypes) continue;
      const dep = resolve(file, m[2] ?? "");
      if (dep !== undefined) deps.push(path.relative(root, dep));
    }
    edges.set(path.relative(root, file), deps);
  }
  return edges;
}
