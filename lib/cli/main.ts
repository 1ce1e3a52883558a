import fs from "node:fs";
import { STATUS_CODES } from "node:http";
import path from "node:path";
import type { AddressInfo, Socket } from "node:net";
import express from "express";
import { createSite, type Site } from "../site";
import { normaliseAppPassword } from "../users/users";
import { parseTrustProxy, type TrustProxy } from "../routes/client-address";
import { storedAnswerPaths } from "../calendar/stored-paths";
import { warmKeptRecords, warmStoredAnswers } from "./warm";
import { announceListening, answerLivenessChecks, isServeWorker, parseWorkers, parseWorkerTimeout, runPrimary } from "./workers";
import type { CliIO } from "./io";
import { errorPages, pageTitle } from "../pages";
import { ROLE_NAMES, RoleName } from "../users/types";
import { generateFixture, loadFixture, resolveFixture, stderrProgress, writeFixture, Fixture, FixtureProgress, FixtureUser, FIXTURE_APP_PASSWORD_NAME } from "../fixtures";
import { ungeneratableType, type GeneratedPostsRequest } from "../fixtures/generate-posts";
import { applyPlugins } from "../plugin";
import { loadPlugins } from "./plugin";
import { integer, parse, Parsed, required, str, UsageError } from "./args";
import { HELP } from "./help";
import { tableNames, TableNameError } from "../db/tables";
import { pgExtensionList, type PgExtension } from "../db/extensions";
import { isEngineError } from "../engine-errors";
import { DbTargetError, describeTarget } from "../db/target";
import { CALPRESS_VERSION } from "../version";
import { fetchIcs, IMPORT_BUDGETS, importIcs } from "../calendar/import/ics";
import type { UserRecord } from "../engine-api";
import { parseSiteUrl } from "../format/site-url";

export const DEFAULT_DB = "./data/calpress.sqlite";

export type { CliIO } from "./io";

const defaultIO: CliIO = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Runs one command; resolves to the exit code (serve resolves once it has stopped). */
export async function main(argv: string[], io: CliIO = defaultIO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "serve":
        return await serve(rest, io);
      case "migrate":
        return await migrate(rest, io);
      case "fixture":
        return await fixture(rest, io);
      case "user":
        return await user(rest, io);
      case "option":
        return await option(rest, io);
      case "import":
        return await importCommand(rest, io);
      case "--version":
      case "-v":
        io.out(CALPRESS_VERSION);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.out(HELP.main);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command: ${command}`);
    }
  } catch (err) {
    // A database target that cannot be used as given is a bad argument too.
    if (err instanceof UsageError || err instanceof DbTargetError) {
      io.err(`calpress: ${err.message}`);
      io.err(`Run "calpress ${command && HELP[command] ? `${command} ` : ""}--help" for usage.`);
      return 2;
    }
    // One line, no stack: what failed and the driver's reason.
    io.err(`calpress: ${oneLine((err as Error).message)}`);
    return 1;
  }
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, " ");
}

function wantsHelp(p: Parsed, topic: string, io: CliIO): boolean {
  if (p.values.help) io.out(HELP[topic]);
  return p.values.help === true;
}

function parseRole(value: string): RoleName {
  if (!(ROLE_NAMES as readonly string[]).includes(value)) {
    throw new UsageError(`unknown role "${value}" (one of ${ROLE_NAMES.join(", ")})`);
  }
  return value as RoleName;
}

/** `--site-url`: an absolute http(s) URL (a usage error, exit 2, otherwise). */
function siteUrlArg(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return parseSiteUrl(value);
  } catch (err) {
    throw new UsageError(`--site-url: ${(err as Error).message}`);
  }
}

/** `login:password:role`; the password may itself contain colons. */
function parseUserSpec(spec: string): { login: string; password: string; role: RoleName } {
  const first = spec.indexOf(":");
  const last = spec.lastIndexOf(":");
  if (first <= 0 || last === first) throw new UsageError(`--user must be login:password:role, not "${spec}"`);
  const password = spec.slice(first + 1, last);
  if (password === "") throw new UsageError(`--user "${spec}" has an empty password`);
  return { login: spec.slice(0, first), password, role: parseRole(spec.slice(last + 1)) };
}

/** A progress bar on a terminal, plain lines otherwise (and for a caller's own IO). */
function progressTo(io: CliIO): FixtureProgress {
  return io === defaultIO ? stderrProgress() : (line) => io.err(line);
}

async function serve(argv: string[], io: CliIO): Promise<number> {
  const p = parse(
    argv,
    {
      port: { type: "string" },
      host: { type: "string" },
      db: { type: "string" },
      "table-prefix": { type: "string" },
      "pg-extension": { type: "string", multiple: true },
      fixture: { type: "string" },
      timezone: { type: "string" },
      "rest-prefix": { type: "string" },
      "site-url": { type: "string" },
      user: { type: "string", multiple: true },
      "answer-store": { type: "string" },
      "answer-store-max": { type: "string" },
      warm: { type: "boolean" },
      force: { type: "boolean" },
      "trust-proxy": { type: "string" },
      workers: { type: "string" },
      "worker-timeout": { type: "string" },
      plugin: { type: "string", multiple: true },
    },
    0,
  );
  if (wantsHelp(p, "serve", io)) return 0;
  const workers = parseWorkers(str(p, "workers"));
  const workerTimeoutMs = parseWorkerTimeout(str(p, "worker-timeout"));
  // In a worker the primary has prepared the database and announces the server.
  const inWorker = isServeWorker();
  if (inWorker) answerLivenessChecks();
  const port = integer(p, "port", { min: 0, max: 65535 }) ?? 8080;
  const host = str(p, "host") ?? "127.0.0.1";
  const db = str(p, "db") ?? DEFAULT_DB;
  const prefix = normalisePrefix(str(p, "rest-prefix") ?? "/wp-json");
  const users = ((p.values.user as string[] | undefined) ?? []).map(parseUserSpec);
  const fixtureName = str(p, "fixture");
  const timezone = str(p, "timezone");
  const siteUrl = siteUrlArg(str(p, "site-url"));
  const trustProxy = trustProxyArg(str(p, "trust-proxy"));
  if (workers !== undefined && (db === ":memory:" || db === "sqlite::memory:")) throw new UsageError("--workers needs a database the workers share: a file or a server, not :memory:");

  const isDefaultDb = str(p, "db") === undefined;
  const freshDefault = isDefaultDb && !fs.existsSync(path.resolve(DEFAULT_DB));
  // Only the default's directory is made (so `npm start` works on a fresh
  // clone); any other SQLite file's directory must exist (lib/db/connect.ts).
  if (freshDefault) fs.mkdirSync(path.dirname(path.resolve(DEFAULT_DB)), { recursive: true });

  // The site must know its REST prefix: the `?rest_route=` form and the
  // pages build their REST root URLs from it.
  const answerFile = str(p, "answer-store");
  const warm = p.values.warm === true;
  if (warm && answerFile === undefined) throw new UsageError("--warm fills the answer store: give --answer-store <file> too");
  const storeMax = integer(p, "answer-store-max", { min: 1, max: 1024 * 1024 });
  if (storeMax !== undefined && answerFile === undefined) throw new UsageError("--answer-store-max bounds the answer store: give --answer-store <file> too");
  const answerStore = answerFile === undefined ? false : { file: answerFile, ...(storeMax === undefined ? {} : { maxBytes: storeMax * 1024 * 1024 }) };
  for (const u of users) warnShortAppPassword(io, u.login, u.password);
  const toLoad = inWorker ? undefined : (fixtureName ?? (freshDefault ? "demo" : undefined));
  const plugins = await loadPlugins(p.values.plugin as string[] | undefined);
  const site = await createSite({ db, tablePrefix: tablePrefix(p), pgExtensions: pgExtensions(p), timezone, restPrefix: prefix, siteUrl, trustProxy, answerStore });
  try {
    // Every worker too: each serves the plugins' routes.
    await applyPlugins(site, plugins);
    // Before the fixture (which may name them as authors) and again after it
    // (the operator's role wins over the fixture's). Workers find both done.
    if (!inWorker) await ensureOperatorUsers(site, users);
    if (toLoad) {
      io.err(`Loading fixture ${toLoad}…`);
      await loadFixture(site.engine, resolveFixture(toLoad), { progress: progressTo(io), force: p.values.force === true, skipAppPasswords: users.map((u) => u.login) });
      await ensureOperatorUsers(site, users);
    }
  } catch (err) {
    await site.close();
    throw err;
  }

  // Everything is served under the site URL's path (a proxy forwards the path as it is).
  const sitePath = site.siteUrl === undefined ? "" : new URL(site.siteUrl).pathname.replace(/\/+$/, "");
  const under = (mount: string): string => (sitePath === "" ? mount : mount === "/" ? sitePath : `${sitePath}${mount}`);
  const pages = site.pages.map(([mount, router]) => ({ title: pageTitle(router) ?? "Page", path: mount === "/" ? `${sitePath}/` : under(mount) }));
  /** What a single server prints once it listens, and a primary once every worker does. */
  const announce = (port: number): void => {
    const shownHost = host.includes(":") ? `[${host}]` : host;
    const root = `http://${shownHost}:${port}${sitePath}${prefix}/`;
    io.out(`calpress listening on ${root}`);
    if (site.siteUrl !== undefined) io.out(`${"Site URL:".padEnd(15)}${site.siteUrl} (every generated URL)`);
    const origin = `http://${shownHost}:${port}`;
    for (const page of pages) io.out(`${`${page.title}:`.padEnd(15)}${origin}${page.path}`);
    if (answerFile !== undefined && !storeAvailable) io.err("calpress: --answer-store is not available on this database (its server refused the cache-tag triggers); answers are built every time");
    if (warm && storeAvailable) {
      // In the background: the server answers meanwhile.
      warming = warmStoredAnswers(root, storedAnswerPaths(site.engine), io).catch((err: Error) => io.err(`calpress: warming stored answers failed: ${err.message}`));
    } else if (recordsKept) {
      // `--warm` keeps them with the answers; otherwise the upcoming events' records are built once, in the background.
      warming = warmKeptRecords(root, io).catch((err: Error) => io.err(`calpress: keeping event records failed: ${err.message}`));
    }
    if (toLoadWasDemo(fixtureName, freshDefault)) {
      io.out(`Demo site loaded. Try:  curl ${root}calendar/events/v1/events`);
      if (!users.some((u) => u.login.toLowerCase() === "admin")) {
        io.out(`Log in as the demo administrator:  curl -u admin:demo-admin-pass ${root}calendar/events/v1/events?status=draft`);
        const editor = pages.find((page) => page.title === "Editor");
        if (editor !== undefined) io.out(`Manage the demo in the editor:  ${origin}${editor.path}  (user admin, application password demo-admin-pass)`);
      }
    }
  };
  const storeAvailable = site.rest.answerStore !== undefined;
  const recordsKept = site.rest.records !== undefined;
  let warming: Promise<unknown> = Promise.resolve();

  if (workers !== undefined && !inWorker) {
    // The primary serves nothing: the workers open the site again. It keeps
    // its own open only to list what `--warm` requests (through the workers);
    // the records warm-up needs only their address.
    if (!warm) await site.close();
    const code = await runPrimary(workers, io, { ready: (port) => announce(port) }, workerTimeoutMs);
    await warming;
    await site.close();
    return code;
  }

  const app = express();
  app.disable("x-powered-by");
  app.use(`${sitePath}${prefix}`, site.router);
  app.use(under("/"), site.rootMiddleware);
  for (const [mount, router] of site.pages) app.use(under(mount), router);
  // What nothing answered, and errors outside the REST API, as pages with the pages' headers.
  app.use(...errorPages((err) => io.err(`calpress: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)));

  const server = app.listen(port, host);
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  }).catch(async (err: Error) => {
    await site.close();
    throw err;
  });
  const actual = (server.address() as AddressInfo).port;
  if (inWorker) announceListening(actual);
  else announce(actual);

  return await new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      // Stop accepting, let in-flight requests finish, then close the database.
      server.close(() => {
        site.close().then(
          () => resolve(0),
          (err: Error) => {
            io.err(`calpress: ${err.message}`);
            resolve(1);
          },
        );
      });
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), 10_000).unref();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

/**
 * The users `--user` names, with their role and application password. A
 * fixture's (published) application passwords are taken away from them,
 * also those an earlier load gave.
 */
async function ensureOperatorUsers(site: Site, users: ReadonlyArray<{ login: string; password: string; role: RoleName }>): Promise<void> {
  const engine = site.engine;
  for (const u of users) {
    const record = await engine.users.ensure({ login: u.login, role: u.role });
    for (const app of await engine.users.listAppPasswords(record.id)) {
      if (app.name === FIXTURE_APP_PASSWORD_NAME) await engine.users.deleteAppPassword(record.id, app.uuid);
    }
    const existing = await engine.users.verifyAppPassword(u.login, u.password);
    if (!existing.ok) await engine.users.addAppPassword(record.id, "cli", u.password);
  }
}

/** Under this many letters and digits (the part of an application password that counts), a chosen one is easy to guess. */
const STRONG_APP_PASSWORD = 16;

/** Short passwords are accepted (tests and demos use them), with a warning. */
function warnShortAppPassword(io: CliIO, login: string, password: string): void {
  const counted = normaliseAppPassword(password).length;
  if (counted >= STRONG_APP_PASSWORD) return;
  io.err(
    `calpress: warning: the application password given for "${login}" has ${counted} letters and digits ` +
      `(only those count); under ${STRONG_APP_PASSWORD} it is easy to guess: use it for tests and demos only`,
  );
}

function trustProxyArg(value: string | undefined): TrustProxy | undefined {
  if (value === undefined) return undefined;
  try {
    return parseTrustProxy(value);
  } catch (err) {
    throw new UsageError(`--trust-proxy must be true, false, a number of proxies or their addresses/subnets: ${(err as Error).message}`);
  }
}

/**
 * Requests Node's HTTP parser refuses before Express sees them (a URL or
 * headers over 16 KB, a malformed request line) get the REST error envelope
 * like every other 4xx, instead of Node's bare status line. The statuses are
 * Node's own choices (431 for oversized headers, 408 for a timed-out
 * request, else 400).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const code = status === 431 ? "rest_request_header_too_large" : status === 408 ? "rest_request_timeout" : "rest_bad_request";
  const message = status === 431 ? "The request line or headers are too large." : status === 408 ? "The request took too long to arrive." : "The request could not be parsed.";
  const body = JSON.stringify({ code, message, data: { status } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Bad Request"}\r\nContent-Type: application/json; charset=UTF-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function toLoadWasDemo(fixtureName: string | undefined, freshDefault: boolean): boolean {
  return fixtureName === "demo" || (fixtureName === undefined && freshDefault);
}

function normalisePrefix(prefix: string): string {
  const trimmed = `/${prefix.replace(/^\/+|\/+$/g, "")}`;
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed) || trimmed === "/") {
    throw new UsageError(`--rest-prefix must be a path such as /wp-json, not "${prefix}"`);
  }
  return trimmed;
}

/** `--table-prefix` of every command that takes `--db`, checked here so that a bad one is a usage error. */
function tablePrefix(p: Parsed): string | undefined {
  const prefix = str(p, "table-prefix");
  try {
    if (prefix !== undefined) tableNames(prefix);
  } catch (err) {
    if (err instanceof TableNameError) throw new UsageError(err.message);
    throw err;
  }
  return prefix;
}

/** `--pg-extension` (repeatable) of the commands that create a site's schema: what `pgExtensions` lets calpress create. */
function pgExtensions(p: Parsed): PgExtension[] | undefined {
  const names = p.values["pg-extension"];
  if (!Array.isArray(names)) return undefined;
  try {
    return pgExtensionList(names, "--pg-extension");
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function migrate(argv: string[], io: CliIO): Promise<number> {
  const p = parse(argv, { db: { type: "string" }, "table-prefix": { type: "string" }, "pg-extension": { type: "string", multiple: true } }, 0);
  if (wantsHelp(p, "migrate", io)) return 0;
  const db = required(p, "db");
  const site = await createSite({ db, tablePrefix: tablePrefix(p), pgExtensions: pgExtensions(p), webhooks: false });
  const created = site.engine.createdSchema;
  await site.close();
  io.out(created ? `created the schema in ${describeTarget(db)}` : `schema up to date in ${describeTarget(db)}`);
  return 0;
}

/** `--posts <type>:<count>` of fixture generate. */
function parsePostsSpec(spec: string): GeneratedPostsRequest {
  const m = /^([a-z0-9_]{1,32}):(\d{1,8})$/.exec(spec);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 10_000_000) throw new UsageError(`--posts must be <post type>:<count from 1 to 10000000>, not "${spec}"`);
  return { type: m[1], count: Number(m[2]) };
}

/** The generated fixture, its posts' types checked against the site's registrations (a usage error names them). */
function generated(site: Site, events: number, seed: number, posts: readonly GeneratedPostsRequest[]): Fixture {
  for (const r of posts) {
    const why = ungeneratableType(site.engine, r.type);
    if (why !== undefined) throw new UsageError(`--posts ${r.type}:${r.count}: ${why}`);
  }
  return generateFixture({ events, seed, ...(posts.length > 0 ? { posts, registry: site.engine } : {}) });
}

async function fixture(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "load") {
    const p = parse(rest, { db: { type: "string" }, "table-prefix": { type: "string" }, "pg-extension": { type: "string", multiple: true }, force: { type: "boolean" }, plugin: { type: "string", multiple: true } }, 1);
    if (wantsHelp(p, "fixture", io)) return 0;
    const name = p.positionals[0];
    if (!name) throw new UsageError("fixture load needs a fixture name or path");
    const plugins = await loadPlugins(p.values.plugin as string[] | undefined);
    const site = await createSite({ db: required(p, "db"), tablePrefix: tablePrefix(p), pgExtensions: pgExtensions(p), webhooks: false });
    try {
      await applyPlugins(site, plugins);
      const counts = await loadFixture(site.engine, resolveFixture(name), { progress: progressTo(io), force: p.values.force === true });
      io.out(`loaded ${name}: ${JSON.stringify(counts)}`);
    } finally {
      await site.close();
    }
    return 0;
  }
  if (sub === "generate") {
    const p = parse(
      rest,
      {
        events: { type: "string" },
        seed: { type: "string" },
        out: { type: "string" },
        db: { type: "string" },
        "table-prefix": { type: "string" },
        "pg-extension": { type: "string", multiple: true },
        force: { type: "boolean" },
        posts: { type: "string", multiple: true },
        plugin: { type: "string", multiple: true },
      },
      0,
    );
    if (wantsHelp(p, "fixture", io)) return 0;
    const posts = ((p.values.posts as string[] | undefined) ?? []).map(parsePostsSpec);
    const events = integer(p, "events", { min: 1, max: 10_000_000 }) ?? (posts.length > 0 ? 0 : undefined);
    if (events === undefined) throw new UsageError("--events (or --posts <type>:<count>) is required");
    const seed = integer(p, "seed", { min: 0, max: 2 ** 32 - 1 }) ?? 1;
    const out = str(p, "out");
    const db = str(p, "db");
    if ((out === undefined) === (db === undefined)) throw new UsageError("give exactly one of --out <file> or --db <target>");
    if (out !== undefined && p.values.force === true) throw new UsageError("--force applies to --db (loading into a site that has events), not to --out");
    const plugins = await loadPlugins(p.values.plugin as string[] | undefined);
    if (out !== undefined) {
      // The plugins' registrations are read from a scratch site: nothing is stored.
      const scratch = await createSite({ db: ":memory:", webhooks: false, pages: false });
      const data = await applyPlugins(scratch, plugins)
        .then(() => generated(scratch, events, seed, posts))
        .finally(() => scratch.close());
      writeFixture(out, data);
      io.out(`wrote ${[...(events > 0 ? [`${events} events`] : []), ...posts.map((r) => `${r.count} ${r.type} posts`)].join(", ")} to ${out}`);
      printLogins(data.users ?? [], io);
      return 0;
    }
    const site = await createSite({ db: db as string, tablePrefix: tablePrefix(p), pgExtensions: pgExtensions(p), webhooks: false });
    try {
      await applyPlugins(site, plugins);
      const data = generated(site, events, seed, posts);
      const counts = await loadFixture(site.engine, data, { progress: progressTo(io), force: p.values.force === true });
      io.out(`loaded ${JSON.stringify(counts)}`);
      printLogins(data.users ?? [], io);
    } finally {
      await site.close();
    }
    return 0;
  }
  if (sub === "--help" || sub === "-h") {
    io.out(HELP.fixture);
    return 0;
  }
  throw new UsageError(sub ? `unknown fixture command: ${sub}` : "fixture needs load or generate");
}

/**
 * `calpress import ics <file|url> --db <target> [--as <login>] [--source
 * <name>] [--restore] [--time-limit <seconds>]`: an iCalendar file into the site as an administrator
 * (the first one unless --as names another user who may create events). A
 * URL is fetched under the default policy (public hosts only), and is the
 * source of its UIDs unless --source names one.
 */
async function importCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "--help" || sub === "-h") {
    io.out(HELP.import);
    return 0;
  }
  if (sub !== "ics") throw new UsageError(sub ? `unknown import format: ${sub} (ics is the one there is)` : "import needs a format: ics");
  const p = parse(
    rest,
    { db: { type: "string" }, as: { type: "string" }, source: { type: "string" }, restore: { type: "boolean" }, "time-limit": { type: "string" }, "table-prefix": { type: "string" } },
    1,
  );
  if (wantsHelp(p, "import", io)) return 0;
  const source = p.positionals[0];
  if (!source) throw new UsageError("import ics needs a file or an http(s) URL");
  const db = required(p, "db");
  let text: string;
  const isUrl = /^https?:\/\//i.test(source);
  if (isUrl) {
    const fetched = await fetchIcs(source);
    if ("error" in fetched) throw new Error(fetched.error);
    text = fetched.text;
  } else {
    if (!fs.existsSync(source)) throw new UsageError(`no such file: ${source}`);
    // Measured before it is read: the import's byte budget holds for files too.
    if (fs.statSync(source).size > IMPORT_BUDGETS.bytes) throw new Error(`${source} is larger than ${IMPORT_BUDGETS.bytes} bytes`);
    text = fs.readFileSync(source, "utf8");
  }
  const site = await createSite({ db, tablePrefix: tablePrefix(p), webhooks: false, pages: false });
  try {
    const { engine } = site;
    const login = str(p, "as");
    const record = login !== undefined ? await engine.users.byLogin(login) : await firstAdministrator(site);
    if (!record) throw new UsageError(login !== undefined ? `no user ${login}` : "the site has no administrator: add one with calpress user add <login> --role administrator");
    const user = engine.users.currentUser(record);
    const tty = io === defaultIO && process.stderr.isTTY === true;
    const report = await importIcs(engine, text, user, {
      source: str(p, "source") ?? (isUrl ? source : undefined),
      restore: p.values.restore === true,
      budgets: { seconds: integer(p, "time-limit", { min: 0, max: 86_400 }) ?? IMPORT_BUDGETS.seconds },
      onProgress: (done, total) => {
        if (tty) process.stderr.write(`\r\x1b[2Kimporting ${done}/${total}${done === total ? "\n" : ""}`);
      },
    });
    io.out(`imported ${source}: ${report.created.length} created, ${report.updated.length} updated, ${report.skipped.length} skipped`);
    for (const e of report.created) io.out(`  created ${e.id} ${e.title} (${e.uid})`);
    for (const e of report.updated) io.out(`  updated ${e.id} ${e.title} (${e.uid})`);
    for (const e of report.skipped) io.out(`  skipped ${e.title || "(untitled)"} (${e.uid ?? "no UID"}): ${e.reason}`);
    for (const e of report.notes) io.out(`  note ${e.id} ${e.title} (${e.uid}): ${e.note}`);
  } finally {
    await site.close();
  }
  return 0;
}

async function firstAdministrator(site: Site): Promise<UserRecord | undefined> {
  const { knex, tables } = site.engine;
  const row = (await knex(tables.users).where({ role: "administrator" }).orderBy("id").first("id")) as { id: number | string } | undefined;
  return row === undefined ? undefined : site.engine.users.get(Number(row.id));
}

/** The generated users and their known application passwords: without them nobody can log in to the new site. */
function printLogins(users: readonly FixtureUser[], io: CliIO): void {
  const withPasswords = users.filter((u) => u.app_password !== undefined);
  if (withPasswords.length === 0) return;
  io.out("users (log in with HTTP Basic, login:application password):");
  for (const u of withPasswords) io.out(`  ${`${u.login}:${u.app_password}`.padEnd(32)} ${u.role}`);
}

async function user(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "--help" || sub === "-h") {
    io.out(HELP.user);
    return 0;
  }
  if (sub !== "add") throw new UsageError(sub ? `unknown user command: ${sub}` : "user needs add");
  const p = parse(rest, { role: { type: "string" }, email: { type: "string" }, "app-password": { type: "string" }, db: { type: "string" }, "table-prefix": { type: "string" } }, 1);
  if (wantsHelp(p, "user", io)) return 0;
  const login = p.positionals[0];
  if (!login) throw new UsageError("user add needs a login");
  const role = parseRole(required(p, "role"));
  const chosen = str(p, "app-password");
  if (chosen !== undefined) warnShortAppPassword(io, login, chosen);
  const site = await createSite({ db: required(p, "db"), tablePrefix: tablePrefix(p), webhooks: false });
  try {
    const record = await site.engine.users.ensure({ login, role, email: str(p, "email") });
    const { secret } = await site.engine.users.addAppPassword(record.id, "cli", str(p, "app-password"));
    io.out(`user ${record.login} (id ${record.id}, ${record.role})`);
    if (str(p, "app-password") === undefined) io.out(`application password: ${secret}`);
  } finally {
    await site.close();
  }
  return 0;
}

/**
 * `option get <name>` / `option set <name> <value>`: site options such as
 * `webhook_url` and `webhook_secret` (lib/hooks), checked as the engine
 * checks them. A serving process sees a change within a second.
 */
async function option(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "--help" || sub === "-h") {
    io.out(HELP.option);
    return 0;
  }
  if (sub !== "get" && sub !== "set") throw new UsageError(sub ? `unknown option command: ${sub}` : "option needs get or set");
  const p = parse(rest, { db: { type: "string" }, "table-prefix": { type: "string" } }, sub === "get" ? 1 : 2);
  if (wantsHelp(p, "option", io)) return 0;
  const [name, value] = p.positionals;
  if (!name) throw new UsageError(`option ${sub} needs a name`);
  if (sub === "set" && value === undefined) throw new UsageError("option set needs a value");
  const site = await createSite({ db: required(p, "db"), tablePrefix: tablePrefix(p), webhooks: false });
  try {
    if (sub === "set") {
      try {
        await site.engine.options.set(name, value as string);
      } catch (err) {
        // A value the option refuses is a bad argument (exit 2), not a failure.
        if (isEngineError(err)) throw new UsageError(err.message);
        throw err;
      }
    }
    const stored = await site.engine.options.get(name);
    if (stored === undefined) {
      io.err(`calpress: option ${name} is not set`);
      return 1;
    }
    io.out(stored);
  } finally {
    await site.close();
  }
  return 0;
}
