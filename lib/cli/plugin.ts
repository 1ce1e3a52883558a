import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { SitePlugin } from "../plugin";
import { UsageError } from "./args";

/**
 * `--plugin <file>[#export]`: a module of the host's that exports a
 * function of the site (lib/plugin.ts). Without `#export`, its default
 * export, else its only exported function. CommonJS and ES modules (and
 * TypeScript when calpress runs under tsx) are loaded alike.
 */
export async function loadPlugin(spec: string): Promise<SitePlugin> {
  const hash = spec.lastIndexOf("#");
  const file = hash >= 0 ? spec.slice(0, hash) : spec;
  const name = hash >= 0 ? spec.slice(hash + 1) : undefined;
  if (file === "" || name === "") throw new UsageError(`--plugin must be <file>[#export], not "${spec}"`);
  const resolved = path.resolve(file);
  if (!fs.existsSync(resolved)) throw new UsageError(`--plugin: no such file: ${resolved}`);
  const mod = await importModule(resolved);
  const functions = Object.entries(mod).filter(([, v]) => typeof v === "function").map(([k]) => k);
  const chosen = name ?? (typeof mod.default === "function" ? "default" : functions.length === 1 ? functions[0] : undefined);
  const fn = chosen === undefined ? undefined : mod[chosen];
  if (typeof fn !== "function") {
    const listed = functions.length > 0 ? `exported functions: ${functions.join(", ")}` : "it exports no function";
    throw new UsageError(
      name !== undefined
        ? `--plugin ${spec}: no exported function "${name}" (${listed})`
        : `--plugin ${spec}: name the function to run, as ${file}#<export> (${listed})`,
    );
  }
  return (site) => (fn as SitePlugin)(site);
}

/** Every `--plugin` given, loaded before the database is opened (a bad one changes nothing). */
export async function loadPlugins(specs: readonly string[] | undefined): Promise<SitePlugin[]> {
  const out: SitePlugin[] = [];
  for (const spec of specs ?? []) out.push(await loadPlugin(spec));
  return out;
}

/**
 * `import()` as Node runs it: TypeScript compiles a dynamic import in a
 * CommonJS module to `require`, which cannot load an ES module on Node 20.
 */
const nativeImport = new Function("specifier", "return import(specifier)") as (specifier: string) => Promise<Record<string, unknown>>;

async function importModule(file: string): Promise<Record<string, unknown>> {
  if (!file.endsWith(".mjs")) {
    try {
      // A runtime path chosen by the operator: require is how CommonJS (and tsx) load it.
      return require(file) as Record<string, unknown>;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ERR_REQUIRE_ESM") throw err;
    }
  }
  return nativeImport(pathToFileURL(file).href);
}
