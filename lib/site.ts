import { createCaching, type KeptRecords } from "./cache";
import type { Request as ExpressRequest, RequestHandler, Router } from "express";
import { createEngine, Engine } from "./engine";
import type { PgExtension } from "./db/extensions";
import type { DbOption } from "./db/target";
import type { UserRecord } from "./engine-api";
import { ROLE_NAMES, type CurrentUser, type RoleName } from "./users/types";
import { basicCredentials, LoginLimiter, LoginLimiterOptions, RestError, RestServer } from "./routes";
import { requestNonce } from "./routes/auth";
import { clientAddressOf, type TrustProxy } from "./routes/client-address";
import type { CorsOptions } from "./routes/cors";
import { EngineError } from "./engine-errors";
import type { RestLogger } from "./routes/types";
import { registerCalendar } from "./calendar/plugin";
import { registerCoreRoutes } from "./core-routes";
import { attachControllers, type Controllers } from "./controllers";
import { extendSeries } from "./calendar/recurrence/series";
import { isValidTimeZone } from "./dates/format";
import { createSitePages } from "./pages";
import { parseSiteUrl } from "./format/site-url";
import { SITE_URL_OPTIONS } from "./options/options";
import type { HookBus } from "./hooks/bus";
import { WebhookDeliverer, type WebhookSettings } from "./hooks/deliverer";
import type { FetchOptions } from "./net/safe-fetch";

/** A user as a host names it: one it already resolved, or how to find one (an id or a login). */
export type HostUserRef = CurrentUser | UserRecord | { id: number } | { login: string } | number | string;

/**
 * What a host's own `authenticate` may answer: a user, `null` (no login),
 * or `{ user, ambient: true }` for credentials the browser sends by itself
 * (cookies): those count only with a valid nonce (`site.createNonce`).
 */
export type HostUser = HostUserRef | { user: HostUserRef; ambient: boolean } | null;

export interface SiteOptions {
  /** SQLite path, `:memory:`, `sqlite:…`, `postgres://…`, `mysql://…`, a knex config or a knex instance. */
  db: DbOption;
  /**
   * Prefix of every table, index, trigger and function calpress creates, as
   * WordPress's `$table_prefix` (letters, digits, `_`; default `cp_`). A
   * table of that name that calpress did not create stops `createSite` with
   * an error naming it, before anything is changed.
   */
  tablePrefix?: string;
  /** PostgreSQL: the schema calpress's tables live in (created when missing); default the connection's current schema. */
  schema?: string;
  /**
   * PostgreSQL: the extensions calpress may create, in its schema, when they
   * are missing: `["pg_trgm"]` for the trigram indexes of search. Default
   * none: an extension already installed (in any schema) is used, none is
   * created, and without pg_trgm search scans every post's text. A role that
   * may not create it is told once per start (`logger`), and search scans.
   */
  pgExtensions?: readonly PgExtension[];
  /** Sets the site time-zone option (IANA name, `UTC` or `UTC+N`); the stored value is kept when absent. */
  timezone?: string;
  /** Sets the site default content language option. */
  defaultLanguage?: string;
  /**
   * The host's own login. Runs first; when it answers null, HTTP Basic with an
   * application password is still tried, so API clients keep working.
   *
   * A login the browser sends by itself (a session cookie) must be answered
   * `{ user, ambient: true }`: as in WordPress it then counts only with a
   * nonce from `site.createNonce(user)` in `X-WP-Nonce` or `_wpnonce`
   * (query or form body). Without a nonce the request is anonymous (any
   * page on the web can make a browser send cookies); a wrong or expired
   * one is 403 `rest_cookie_invalid_nonce`.
   *
   * A user calpress does not know (by id or login) makes the request
   * anonymous and is logged once, unless `provisionUsers` creates it.
   */
  authenticate?: (req: ExpressRequest) => Promise<HostUser> | HostUser;
  /**
   * Users the host's `authenticate` names by login and calpress does not
   * know yet are created with this role (and no password) on their first
   * request. Default: not created (see `engine.users.ensure` to create them
   * yourself, with the role you choose).
   */
  provisionUsers?: { role: RoleName } | false;
  /**
   * CORS headers: `origins` a list of origins allowed to read answers with
   * credentials, `"*"` any origin without credentials, `false` (or
   * `cors: false`) none. Default: WordPress's, any Origin with credentials.
   */
  cors?: CorsOptions | false;
  /**
   * Which address is the client's (the failed-login limiter, the last use of
   * an application password), as Express's `trust proxy`: `false` the
   * socket's peer, `true` the left-most `X-Forwarded-For`, a number of
   * proxy hops, or the proxies' addresses/subnets. Default: `req.ip`, i.e.
   * the host app's own `trust proxy` setting.
   */
  trustProxy?: TrustProxy;
  /**
   * Key material for application-password hashes and nonces kept out of the
   * database, as WordPress's salts (default: the environment variable
   * `CALPRESS_SECRET`, else a random key stored in the database). Adding or
   * changing it invalidates the application passwords made before.
   */
  secret?: string;
  /**
   * With `authenticate`: whether a request certainly carries none of the
   * host's credentials (no session cookie, say), answered at once. `true`
   * must mean that `authenticate` would answer null. It lets a stored
   * answer (`answerStore`) be sent before the request is routed; without
   * it, every request with a host authenticator is asked. A request with an
   * Authorization header or a nonce (`X-WP-Nonce`, `_wpnonce`) is never
   * taken for anonymous here.
   */
  isAnonymous?: (req: ExpressRequest) => boolean;
  /** Path the router is mounted at (default `/wp-json`): tells the site home from the REST root. */
  restPrefix?: string;
  /**
   * The site's public URL (`https://example.org`, or with a path,
   * `https://example.org/calendar`): the only source of the scheme, host,
   * port and path of every URL the site generates (records, `Link`,
   * `Location`, iCal UIDs, the pages' REST root). Mount the router at
   * `<its path><restPrefix>`. Stored as the site options `home` and
   * `siteurl`; when absent, a stored `home` is used, and without one URLs
   * follow each request (a Host that is not a valid `host[:port]` gets 400).
   */
  siteUrl?: string;
  /** Register the calendar plugin (default true). */
  calendar?: boolean;
  /**
   * Build the HTML pages (demo calendar at `/`, API reference at `/docs`,
   * editor at `/editor`) into `site.pages` (default true; without the
   * calendar plugin the reference and the editor). The host still decides whether to
   * mount them.
   */
  pages?: boolean;
  maxBodyBytes?: number;
  logger?: RestLogger;
  /**
   * Failed logins allowed per client address and login before 429 (default
   * 20 a minute, sliding, so a real user is never locked out for long, and
   * failures for other logins never block one); `trustProxy` says what the
   * client address is. `false` turns the limiter off (a host with its own
   * rate limiting).
   */
  loginLimit?: LoginLimiterOptions | false;
  /**
   * Reuse of whole anonymous GET answers of the calendar routes while the
   * database is unchanged (a change is detected with one cheap statement
   * on every database; see lib/cache/revision.ts and
   * lib/cache/response-cache.ts). `false` turns it
   * off. Default: on, 16 MiB, answers at most 1 s old.
   */
  responseCache?: { maxBytes?: number; maxAgeMs?: number } | false;
  /**
   * Keep anonymous answers of single events, venues and organizers in a
   * SQLite file (`file`) beside the database and reuse them while nothing
   * they show has changed (lib/cache/answer-store.ts). Each is proved
   * still good against the database's cache tags before it is sent, so
   * several processes (and writers other than calpress) are safe. SQLite
   * and PostgreSQL, and MariaDB/MySQL where the server allowed the cache-tag triggers. `version` names your own code:
   * change it when a deploy changes what answers look like, and the stored
   * ones are dropped. `maxBytes` bounds the answers in the file (default
   * 512 MiB): past it the oldest stored tenth is deleted. Default: off.
   */
  answerStore?: { file: string; version?: string; maxBytes?: number } | false;
  /**
   * Kept records (lib/cache/records.ts): each event's JSON as lists show it,
   * built once per revision of what it shows and reused by every list page
   * and filter that shows it (anonymous readers). Kept by default outside
   * the heap, in a SQLite file every process of the site shares: the
   * `answerStore`'s file when there is one, else `file` (default: beside a
   * SQLite database as `<file>.records`; for a database server a file of this
   * machine in a directory of this user's own under the temporary
   * directory; `null`: in memory). In memory (a SQLite database in memory,
   * or a file that cannot be opened), the same store on a SQLite database
   * in memory keeps at most `maxBytes` (default 16 MiB).
   * `false` turns them off. Every database (a MariaDB/MySQL server that
   * refused the cache-tag triggers keeps none).
   */
  records?: { maxBytes?: number; file?: string | null } | false;
  /**
   * Post types that ask for it (events) answer anonymous lists from an
   * in-memory index of their published posts (lib/posts/published-index.ts),
   * kept exact by the cache tags. `false` turns it off. Every database (not a MariaDB/MySQL server that refused the cache-tag triggers).
   */
  publishedIndex?: boolean;
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
  /**
   * The generated routes of post types and taxonomies with `rest` (WordPress's
   * posts and terms controllers, lib/controllers): extend them with
   * `extendPostType` / `extendTaxonomy`.
   */
  readonly controllers: Controllers;
  /** Mount at the REST prefix: `app.use("/wp-json", site.router)`. */
  readonly router: Router;
  /** Mount at the site root to answer `/?rest_route=/…` as WordPress does. */
  readonly rootMiddleware: RequestHandler;
  /** The site URL in force (`siteUrl`, else the stored `home` option), normalized; `undefined`: URLs follow requests. */
  readonly siteUrl: string | undefined;
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
  /**
   * A nonce for a cookie (ambient) login of `user` (an id, login or record),
   * for `X-WP-Nonce` or `_wpnonce`: WordPress's `wp_create_nonce('wp_rest')`,
   * valid 12 to 24 hours. Throws for a user calpress does not know (unless
   * `provisionUsers` creates it).
   */
  createNonce(user: HostUserRef): Promise<string>;
  /** Re-run migrations after registering post types with typed fields. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export async function createSite(options: SiteOptions): Promise<Site> {
  if (options.timezone !== undefined && !isValidTimeZone(options.timezone)) {
    throw new Error(`unknown time zone: ${options.timezone}`);
  }
  // Checked before the database is opened: a bad URL changes nothing.
  const siteUrl = options.siteUrl === undefined ? undefined : parseSiteUrl(options.siteUrl);
  const secret = options.secret ?? (process.env.CALPRESS_SECRET || undefined);
  if (secret !== undefined && secret.trim() === "") throw new Error("secret must not be empty");
  const provision = options.provisionUsers || undefined;
  if (provision !== undefined && !(ROLE_NAMES as readonly string[]).includes(provision.role)) throw new Error(`provisionUsers: unknown role ${String(provision.role)}`);
  const clientKey = clientAddressOf(options.trustProxy);
  const { engine, close } = await createEngine(options.db, {
    secret,
    tablePrefix: options.tablePrefix,
    schema: options.schema,
    pgExtensions: options.pgExtensions,
    publishedIndex: options.publishedIndex,
  });
  // Closed with the site, or when creating it fails after they opened.
  let keptRecords: KeptRecords | undefined;
  try {
    const hostUsers = new HostUsers(engine, provision, options.logger);
    const authenticator = (req: ExpressRequest): Promise<CurrentUser | null | RestError> => authenticate(engine, hostUsers, options, clientKey, req);
    const caching = createCaching(engine, options);
    const rest = new RestServer({
      authenticate:
        options.loginLimit === false
          ? authenticator
          : new LoginLimiter({ maxFailures: 20, windowMs: 60_000, clientKey, ...(options.loginLimit ?? {}) }).wrap(authenticator),
      cors: options.cors,
      // Without a host authenticator only HTTP Basic credentials log in: a
      // request without an Authorization header is anonymous (the login
      // limiter never refuses those). A host's own scheme (cookies, tokens)
      // is known only to the host: its `isAnonymous`, else every request is asked.
      isAnonymous: anonymityCheck(options),
      restPrefix: options.restPrefix,
      siteUrl,
      maxBodyBytes: options.maxBodyBytes,
      logger: options.logger,
      responseCache: caching.responseCache,
      writeGuards: caching.writeGuards,
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
    // After the calendar, so that its namespace stays the first of the REST root's.
    registerCoreRoutes({ engine, rest });
    // After the core routes: a type in `wp/v2` gets its routes after WordPress's discovery routes.
    const controllers = attachControllers(engine, rest);
    const migrate = async (): Promise<void> => {
      await engine.migrate();
      // The site runs without them (If-Match then keeps the window of one GET): said, not thrown.
      const refused = engine.cacheTagTriggersRefused;
      if (refused !== null) (options.logger ?? console).error(refused);
      // Search then scans, with the same results.
      if (engine.searchIndexMissing !== null) (options.logger ?? console).error(engine.searchIndexMissing);
    };
    await migrate();
    engine.hooks.logger = options.logger ?? { error: (message, err) => (err === undefined ? console.error(message) : console.error(message, err)) };
    const webhooks = new WebhookDeliverer(engine, options.webhooks || {}, engine.hooks.logger);
    // Also picks up rows an earlier process wrote and never delivered.
    if (options.webhooks !== false && options.webhooks?.autoStart !== false) webhooks.start();
    rest.answerStore = await caching.openStore();
    const kept = await caching.openRecords(rest.answerStore);
    rest.records = kept?.records;
    keptRecords = kept;
    // Written only when they differ: any write to the options voids every
    // stored answer (they all show the site's options), and a restart with
    // the same --timezone must not.
    if (options.timezone !== undefined && (await engine.options.get("timezone")) !== options.timezone) await engine.options.set("timezone", options.timezone);
    if (options.defaultLanguage !== undefined && (await engine.options.get("default_language")) !== options.defaultLanguage) {
      await engine.options.set("default_language", options.defaultLanguage);
    }
    rest.siteUrl = await siteUrlOption(engine, siteUrl, options.logger);

    // WordPress publishes scheduled posts from cron; here a timer does it,
    // and every process may run it (publishing is idempotent).
    const publishDue = (): void => {
      engine.posts.publishDue().catch((err: unknown) => options.logger?.error("publishing scheduled posts failed", err));
    };
    publishDue();
    const scheduler = setInterval(publishDue, 30_000);
    scheduler.unref();
    // Series materialise their occurrences up to a horizon (lib/calendar/recurrence/series.ts): moved on once a UTC day.
    let extendedOn = "";
    let extending: Promise<unknown> = Promise.resolve();
    const extend = (): void => {
      const today = new Date().toISOString().slice(0, 10);
      if (options.calendar === false || today === extendedOn) return;
      extendedOn = today;
      extending = extendSeries(engine, new Date()).catch((err: unknown) => options.logger?.error("extending recurring events failed", err));
    };
    extend();
    const extender = setInterval(extend, 3_600_000);
    extender.unref();
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
      controllers,
      router: rest.router(),
      rootMiddleware: rest.restRouteMiddleware(),
      siteUrl: rest.siteUrl,
      pages:
        options.pages !== false
          ? createSitePages({ restPrefix: options.restPrefix, siteUrl: rest.siteUrl, calendar: options.calendar !== false, nonceFor: (req) => pageNonce(engine, hostUsers, options, req) })
          : [],
      hooks: engine.hooks,
      webhooks,
      createNonce: async (user) => {
        const current = await hostUsers.resolve(user);
        if (current === null) throw new Error(`createNonce: calpress knows no user ${describeRef(user)}`);
        return engine.users.createNonce(current.id);
      },
      migrate,
      close: async () => {
        if (closed) return;
        closed = true;
        await webhooks.stop();
        clearInterval(scheduler);
        clearInterval(optimizer);
        clearInterval(extender);
        await extending;
        await rest.answerStore?.close();
        await keptRecords?.close();
        await close();
      },
    };
  } catch (err) {
    await keptRecords?.close();
    await close();
    throw err;
  }
}

/**
 * The site URL in force, kept in the options `home` and `siteurl` as in
 * WordPress: the given one is written (only when it differs: any option
 * write voids every stored answer), else the stored `home` is used (read
 * once, at start). An empty `home` means none.
 */
async function siteUrlOption(engine: Engine, given: string | undefined, logger: RestLogger | undefined): Promise<string | undefined> {
  if (given !== undefined) {
    for (const name of SITE_URL_OPTIONS) if ((await engine.options.get(name)) !== given) await engine.options.set(name, given);
    return given;
  }
  const stored = (await engine.options.get("home")) ?? "";
  if (stored === "") return undefined;
  try {
    return parseSiteUrl(stored);
  } catch (err) {
    // Written behind the options' back (they validate it): URLs follow requests, as without one.
    (logger ?? console).error(`the stored home option is not a usable site URL; URLs follow requests`, err);
    return undefined;
  }
}

function anonymityCheck(options: SiteOptions): ((req: ExpressRequest) => boolean) | undefined {
  const host = options.isAnonymous;
  if (options.authenticate === undefined) return (req) => req.headers.authorization === undefined;
  // A nonce makes a cookie login count: such a request is left to the authenticator.
  return host === undefined ? undefined : (req) => req.headers.authorization === undefined && requestNonce(req) === undefined && host(req);
}

async function authenticate(engine: Engine, hostUsers: HostUsers, options: SiteOptions, clientKey: (req: ExpressRequest) => string, req: ExpressRequest): Promise<CurrentUser | null | RestError> {
  if (options.authenticate) {
    const hostUser = await hostLogin(engine, hostUsers, await options.authenticate(req), req);
    if (hostUser !== null) return hostUser;
  }
  const creds = basicCredentials(req);
  if (!creds) return null;
  const result = await engine.users.verifyAppPassword(creds.login, creds.password, clientKey(req));
  if (result.ok) return result.user;
  // rest-conventions.md §8: wrong credentials fail every request with 401.
  const messages = {
    invalid_username: "Unknown username. Check again or try your email address.",
    invalid_email: "Unknown email address. Check again or try your username.",
    incorrect_password: "The provided password is an invalid application password.",
  } as const;
  return new RestError(result.reason, messages[result.reason], 401);
}

function isAmbientAnswer(answer: HostUser): answer is { user: HostUserRef; ambient: boolean } {
  return typeof answer === "object" && answer !== null && "ambient" in answer && "user" in answer;
}

/**
 * The user of a host's answer. Credentials the browser sends by itself
 * count only with a nonce of that user (WordPress `rest_cookie_check_errors()`):
 * without one the request is anonymous; a wrong one is refused.
 */
async function hostLogin(engine: Engine, hostUsers: HostUsers, answer: HostUser, req: ExpressRequest): Promise<CurrentUser | RestError | null> {
  if (answer === null || answer === undefined) return null;
  if (!isAmbientAnswer(answer)) return hostUsers.resolve(answer);
  if (!answer.ambient) return hostUsers.resolve(answer.user);
  const nonce = requestNonce(req);
  if (nonce === undefined) return null;
  const user = await hostUsers.resolve(answer.user);
  if (user === null) return null;
  if (!(await engine.users.verifyNonce(user.id, nonce))) return new RestError("rest_cookie_invalid_nonce", "Cookie check failed", 403);
  // As WordPress: a fresh nonce with the answer, for a page that stays open past a nonce's life.
  req.res?.setHeader("X-WP-Nonce", await engine.users.createNonce(user.id));
  return user;
}

/**
 * The nonce the editor page carries for a host's cookie login: only for an
 * ambient answer (a bearer-style answer needs none, and no login gets none).
 */
async function pageNonce(engine: Engine, hostUsers: HostUsers, options: SiteOptions, req: ExpressRequest): Promise<string | undefined> {
  if (options.authenticate === undefined) return undefined;
  const answer = await options.authenticate(req);
  if (answer === null || answer === undefined || !isAmbientAnswer(answer) || !answer.ambient) return undefined;
  const user = await hostUsers.resolve(answer.user);
  return user === null ? undefined : engine.users.createNonce(user.id);
}

function describeRef(user: HostUserRef): string {
  if (typeof user === "number") return `#${user}`;
  if (typeof user === "string") return JSON.stringify(user);
  if ("login" in user) return JSON.stringify(user.login);
  return `#${user.id}`;
}

/** Most unknown users logged (each once); past it, no more are logged, so a host bug cannot grow memory. */
const UNKNOWN_USERS_LOGGED = 1000;

/** Users as the host names them: found, created (`provisionUsers`), or unknown (logged once, anonymous). */
class HostUsers {
  private readonly logged = new Set<string>();

  constructor(
    private readonly engine: Engine,
    private readonly provision: { role: RoleName } | undefined,
    private readonly logger: RestLogger | undefined,
  ) {}

  async resolve(user: HostUserRef): Promise<CurrentUser | null> {
    if (typeof user === "object" && "can" in user) return user;
    if (typeof user === "object" && "role" in user) return this.engine.users.currentUser(user);
    const id = typeof user === "number" ? user : typeof user === "object" && "id" in user ? user.id : undefined;
    const login = typeof user === "string" ? user : typeof user === "object" && "login" in user ? user.login : undefined;
    let record: UserRecord | undefined;
    if (id !== undefined) record = await this.engine.users.get(id);
    else if (login !== undefined) record = (await this.engine.users.byLogin(login)) ?? (await this.provisioned(login));
    if (record !== undefined) return this.engine.users.currentUser(record);
    this.unknown(user);
    return null;
  }

  /** A new user for `login` when `provisionUsers` is set (another request may have just created it). */
  private async provisioned(login: string): Promise<UserRecord | undefined> {
    if (this.provision === undefined) return undefined;
    try {
      return await this.engine.users.create({ login, role: this.provision.role });
    } catch (err) {
      if (err instanceof EngineError && err.code === "existing_user_login") return this.engine.users.byLogin(login);
      // A login calpress cannot store (empty, too long): the host's mistake, logged as an unknown user.
      if (err instanceof EngineError) return undefined;
      throw err;
    }
  }

  private unknown(user: HostUserRef): void {
    const name = describeRef(user);
    if (this.logged.has(name) || this.logged.size >= UNKNOWN_USERS_LOGGED) return;
    this.logged.add(name);
    const message =
      `calpress: authenticate named user ${name}, which this site does not know; the request is anonymous. ` +
      "Create the user first (site.engine.users.ensure) or set provisionUsers.";
    if (this.logger !== undefined) this.logger.error(message);
    else console.error(message);
  }
}
