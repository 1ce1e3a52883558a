import path from "node:path";
import { runGuarded, snapshotTags, writeGuardsAvailable } from "./db/write-guard";
import type { Request as ExpressRequest, RequestHandler, Router } from "express";
import { createEngine, Engine } from "./engine";
import type { DbOption } from "./db/target";
import type { UserRecord } from "./engine-api";
import type { CurrentUser } from "./users/types";
import { basicCredentials, LoginLimiter, LoginLimiterOptions, RestError, RestServer } from "./routes";
import type { RestLogger } from "./routes/types";
import type { ResponseCacheOptions } from "./routes/response-cache";
import { AnswerStore } from "./routes/answer-store";
import { cacheTagsMaintained, EPOCH_TAG, readTagVersions, SITE_TAG } from "./db/cache-tags";
import { CALPRESS_VERSION, codeFingerprint } from "./version";
import { registerCalendar } from "./calendar/plugin";
import { isValidTimeZone } from "./dates/format";
import { createSitePages } from "./pages";
import type { HookBus } from "./hooks/bus";
import { WebhookDeliverer, type WebhookSettings } from "./hooks/deliverer";
import type { FetchOptions } from "./net/safe-fetch";

/** What a host's own `authenticate` may answer: a user it already resolved, or how to find one. */
export type HostUser = CurrentUser | UserRecord | { id: number } | { login: string } | number | string | null;

export interface SiteOptions {
  /** SQLite path, `:memory:`, `sqlite:…`, `postgres://…`, `mysql://…`, a knex config or a knex instance. */
  db: DbOption;
  /** Sets the site time-zone option (IANA name, `UTC` or `UTC+N`); the stored value is kept when absent. */
  timezone?: string;
  /** Sets the site default content language option. */
  defaultLanguage?: string;
  /**
   * The host's own login. Runs first; when it answers null, HTTP Basic with an
   * application password is still tried, so API clients keep working.
   */
  authenticate?: (req: ExpressRequest) => Promise<HostUser> | HostUser;
  /**
   * With `authenticate`: whether a request certainly carries none of the
   * host's credentials (no session cookie, say), answered at once. `true`
   * must mean that `authenticate` would answer null. It lets a stored
   * answer (`answerStore`) be sent before the request is routed; without
   * it, every request with a host authenticator is asked. A request with an
   * Authorization header is never taken for anonymous.
   */
  isAnonymous?: (req: ExpressRequest) => boolean;
  /** Path the router is mounted at (default `/wp-json`): tells the site home from the REST root. */
  restPrefix?: string;
  /** Register the calendar plugin (default true). */
  calendar?: boolean;
  /**
   * Build the HTML pages (demo calendar at `/`, API reference at `/docs`)
   * into `site.pages` (default true; they need the calendar plugin). The
   * host still decides whether to mount them.
   */
  pages?: boolean;
  maxBodyBytes?: number;
  logger?: RestLogger;
  /**
   * Failed logins allowed per client address before 429 (default 20 a
   * minute, sliding, so a real user is never locked out for long); `false`
   * turns the limiter off (a host with its own rate limiting).
   */
  loginLimit?: LoginLimiterOptions | false;
  /**
   * Reuse of whole anonymous GET answers of the calendar routes while the
   * database is unchanged (SQLite and PostgreSQL, where a change can be
   * detected with one cheap statement; see lib/db/revision.ts and
   * lib/routes/response-cache.ts). `false` turns it
   * off. Default: on, 16 MiB, answers at most 1 s old.
   */
  responseCache?: { maxBytes?: number; maxAgeMs?: number } | false;
  /**
   * Keep anonymous answers of single events, venues and organizers in a
   * SQLite file (`file`) beside the database and reuse them while nothing
   * they show has changed (lib/routes/answer-store.ts). Each is proved
   * still good against the database's cache tags before it is sent, so
   * several processes (and writers other than calpress) are safe. SQLite
   * and PostgreSQL; ignored on MariaDB/MySQL. `version` names your own code:
   * change it when a deploy changes what answers look like, and the stored
   * ones are dropped. Default: off.
   */
  answerStore?: { file: string; version?: string } | false;
  /**
   * The outgoing webhooks' deliverer (lib/hooks/deliverer.ts). Webhooks are
   * sent once the site option `webhook_url` is set (signed with the option
   * `webhook_secret`): every change then also writes an outbox row in its own
   * transaction, and this process POSTs it. `false`: this process never
   * delivers (another one on the same database does); rows are still written.
   */
  webhooks?: WebhookSettings | false;
  /**
   * The requests calpress makes to URLs its users give (an `image` URL is
   * fetched to check that it is an image): only public hosts, on ports 80,
   * 443 and 8080, each redirect checked again, 5 s and 64 KiB at most
   * (lib/net/safe-fetch.ts). `allowHosts` names hosts fetched anyway, on any
   * port (an intranet image server; a test server on `127.0.0.1`).
   */
  fetch?: FetchOptions;
}

export interface Site {
  /** The posts-and-taxonomies engine: register post types and taxonomies, run operations in-process. */
  readonly engine: Engine;
  /** The route table: register namespaces and routes of your own. */
  readonly rest: RestServer;
  /** Mount at the REST prefix: `app.use("/wp-json", site.router)`. */
  readonly router: Router;
  /** Mount at the site root to answer `/?rest_route=/…` as WordPress does. */
  readonly rootMiddleware: RequestHandler;
  /** Extra pages (mount path → router) the CLI serves beside the API; a host may skip them. */
  readonly pages: Array<[string, Router]>;
  /**
   * Change hooks: `site.hooks.on("event.created", (change) => …)` returns an
   * unsubscribe function. Listeners run after the change commits, never for a
   * rolled-back write, and cannot fail the request (errors are logged).
   */
  readonly hooks: HookBus;
  /** The webhook deliverer: `deliverDue(now?)` sends what is due now; `start()`/`stop()` the background loop. */
  readonly webhooks: WebhookDeliverer;
  /** Re-run migrations after registering post types with typed fields. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export async function createSite(options: SiteOptions): Promise<Site> {
  if (options.timezone !== undefined && !isValidTimeZone(options.timezone)) {
    throw new Error(`unknown time zone: ${options.timezone}`);
  }
  const { engine, close } = await createEngine(options.db);
  try {
    const authenticator = (req: ExpressRequest): Promise<CurrentUser | null | RestError> => authenticate(engine, options, req);
    const rest = new RestServer({
      authenticate:
        options.loginLimit === false
          ? authenticator
          : new LoginLimiter({ maxFailures: 20, windowMs: 60_000, ...(options.loginLimit ?? {}) }).wrap(authenticator),
      // Without a host authenticator only HTTP Basic credentials log in: a
      // request without an Authorization header is anonymous (the login
      // limiter never refuses those). A host's own scheme (cookies, tokens)
      // is known only to the host: its `isAnonymous`, else every request is asked.
      isAnonymous: anonymityCheck(options),
      restPrefix: options.restPrefix,
      maxBodyBytes: options.maxBodyBytes,
      logger: options.logger,
      responseCache: responseCacheOptions(engine, options.responseCache),
      writeGuards: writeGuardsAvailable(engine.knex)
        ? { snapshot: (tags) => snapshotTags(engine.knex, tags), run: (snapshot, stale, work) => runGuarded(snapshot, stale, work) }
        : undefined,
      siteInfo: async () => {
        const timezone = await engine.options.timezone();
        return {
          name: (await engine.options.get("blogname")) ?? "calpress",
          description: (await engine.options.get("blogdescription")) ?? "An events calendar",
          timezone_string: timezone.startsWith("UTC") ? "" : timezone,
        };
      },
    });
    if (options.calendar !== false) registerCalendar({ engine, rest, fetch: options.fetch });
    await engine.migrate();
    engine.hooks.logger = options.logger ?? { error: (message, err) => (err === undefined ? console.error(message) : console.error(message, err)) };
    const webhooks = new WebhookDeliverer(engine, options.webhooks || {}, engine.hooks.logger);
    // Also picks up rows an earlier process wrote and never delivered.
    if (options.webhooks !== false && options.webhooks?.autoStart !== false) webhooks.start();
    rest.answerStore = await openAnswerStore(engine, options);
    // Written only when they differ: any write to the options voids every
    // stored answer (they all show the site's options), and a restart with
    // the same --timezone must not.
    if (options.timezone !== undefined && (await engine.options.get("timezone")) !== options.timezone) await engine.options.set("timezone", options.timezone);
    if (options.defaultLanguage !== undefined && (await engine.options.get("default_language")) !== options.defaultLanguage) {
      await engine.options.set("default_language", options.defaultLanguage);
    }

    // WordPress publishes scheduled posts from cron; here a timer does it,
    // and every process may run it (publishing is idempotent).
    const publishDue = (): void => {
      engine.posts.publishDue().catch((err: unknown) => options.logger?.error("publishing scheduled posts failed", err));
    };
    publishDue();
    const scheduler = setInterval(publishDue, 30_000);
    scheduler.unref();
    // SQLite's advice for long-lived connections: refresh the planner
    // statistics now and then, as tables grow (a no-op elsewhere).
    const optimizer = setInterval(() => {
      engine.optimizeStorage().catch((err: unknown) => options.logger?.error("refreshing database statistics failed", err));
    }, 3_600_000);
    optimizer.unref();

    let closed = false;
    return {
      engine,
      rest,
      router: rest.router(),
      rootMiddleware: rest.restRouteMiddleware(),
      pages: options.pages !== false && options.calendar !== false ? createSitePages({ restPrefix: options.restPrefix }) : [],
      hooks: engine.hooks,
      webhooks,
      migrate: () => engine.migrate(),
      close: async () => {
        if (closed) return;
        closed = true;
        await webhooks.stop();
        clearInterval(scheduler);
        clearInterval(optimizer);
        await rest.answerStore?.close();
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

function anonymityCheck(options: SiteOptions): ((req: ExpressRequest) => boolean) | undefined {
  const host = options.isAnonymous;
  if (options.authenticate === undefined) return (req) => req.headers.authorization === undefined;
  return host === undefined ? undefined : (req) => req.headers.authorization === undefined && host(req);
}

async function authenticate(engine: Engine, options: SiteOptions, req: ExpressRequest): Promise<CurrentUser | null | RestError> {
  if (options.authenticate) {
    const hostUser = await resolveHostUser(engine, await options.authenticate(req));
    if (hostUser) return hostUser;
  }
  const creds = basicCredentials(req);
  if (!creds) return null;
  const result = await engine.users.verifyAppPassword(creds.login, creds.password, req.ip);
  if (result.ok) return result.user;
  // rest-conventions.md §8: wrong credentials fail every request with 401.
  const messages = {
    invalid_username: "Unknown username. Check again or try your email address.",
    invalid_email: "Unknown email address. Check again or try your username.",
    incorrect_password: "The provided password is an invalid application password.",
  } as const;
  return new RestError(result.reason, messages[result.reason], 401);
}

async function resolveHostUser(engine: Engine, user: HostUser): Promise<CurrentUser | null> {
  if (user === null || user === undefined) return null;
  if (typeof user === "object" && "can" in user) return user;
  let record: UserRecord | undefined;
  if (typeof user === "number") record = await engine.users.get(user);
  else if (typeof user === "string") record = await engine.users.byLogin(user);
  else if ("role" in user) record = user;
  else if ("id" in user) record = await engine.users.get(user.id);
  else record = await engine.users.byLogin(user.login);
  return record ? engine.users.currentUser(record) : null;
}

function responseCacheOptions(engine: Engine, setting: SiteOptions["responseCache"]): ResponseCacheOptions | undefined {
  const reads = engine.readCache;
  if (setting === false || reads === null) return undefined;
  return { ...setting, revision: () => reads.token() };
}

async function openAnswerStore(engine: Engine, options: SiteOptions): Promise<AnswerStore | undefined> {
  const setting = options.answerStore;
  const reads = engine.readCache;
  if (setting === undefined || setting === false || reads === null || !cacheTagsMaintained(engine.knex)) return undefined;
  const epoch = (await readTagVersions(engine.knex, [EPOCH_TAG])).get(EPOCH_TAG) ?? 0;
  // Processes on one PostgreSQL database share a store file's proofs (see sharedToken).
  const shared = reads.sharesTokens;
  return AnswerStore.open({
    file: setting.file,
    revision: shared ? () => reads.sharedToken() : () => reads.token(),
    sharedRevision: shared,
    versions: (tags) => readTagVersions(engine.knex, tags),
    always: [SITE_TAG, EPOCH_TAG],
    identity: `calpress ${CALPRESS_VERSION} ${codeFingerprint()}; epoch ${epoch}; site ${setting.version ?? ""}`,
    logger: options.logger,
    attach: sqliteFile(engine),
  });
}

/** The SQLite file of the site's database, if it is one (not `:memory:`). */
function sqliteFile(engine: Engine): string | undefined {
  if (engine.dialect !== "sqlite") return undefined;
  const connection = engine.knex.client.config.connection as { filename?: unknown } | undefined;
  const filename = typeof connection === "object" && connection !== null ? connection.filename : undefined;
  return typeof filename === "string" && filename !== ":memory:" && !filename.startsWith("file:") ? path.resolve(filename) : undefined;
}
