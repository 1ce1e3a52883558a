export const HELP: Record<string, string> = {
  main: `Usage: calpress <command> [options]

Commands:
  serve                 serve the REST API (and the demo site on first start)
  migrate               create or update the database schema
  fixture load <name>   load a fixture (a name under fixtures/ or a path)
  fixture generate      write deterministic synthetic data for benchmarks
  user add <login>      create a user (or change its role) and add an application password
  option get|set        read or write a site option (e.g. webhook_url, webhook_secret)
  import ics <file|url> bring events in from an iCalendar file (Google, Apple, Outlook…)

Run "calpress <command> --help" for the options of a command; "calpress --version" (-v) prints the version.`,
  serve: `Usage: calpress serve [--port 8080] [--host 127.0.0.1] [--db <target>]
                      [--fixture <name|path>] [--plugin <file>[#export]]... [--timezone <IANA zone>]
                      [--rest-prefix /wp-json] [--site-url <url>] [--user <login>:<password>:<role>]...
                      [--answer-store <file> [--answer-store-max <MiB>] [--warm]] [--trust-proxy <setting>]
                      [--table-prefix cp_] [--pg-extension pg_trgm] [--force] [--workers N|auto [--worker-timeout 30]]

  --port          port to listen on; 0 takes a free port (default 8080)
  --host          address to bind (default 127.0.0.1)
  --db            SQLite file, :memory:, sqlite:<path>, postgres://… or mysql://…
                  (default ./data/calpress.sqlite: ./data is created and a new default
                  database gets the demo; the directory of any other SQLite file must exist)
  --fixture       load this fixture into the (empty) database before serving
  --plugin        a module of yours whose exported function registers post types, taxonomies
                  and routes on the site, as in fixture load (repeatable)
  --force         with --fixture: load it even when the site already has events (adds to them)
  --timezone      site time zone option (default UTC, or the stored option)
  --rest-prefix   path of the REST root (default /wp-json)
  --site-url      the site's public URL (https://example.org/calendar): the only source of every
                  generated URL, whatever the Host header; served under its path (default: the
                  stored home option, else URLs follow each request)
  --user          make sure this user exists with this role and application password (repeatable);
                  a fixture's published passwords are taken from it; under 16 letters and digits warns
  --answer-store  keep anonymous answers of single events, venues and organizers in this SQLite
                  file and reuse them while nothing they show changed
  --answer-store-max  bound on the stored answers, in MiB (default 512); past it the oldest
                  stored tenth is deleted
  --warm          after start, request every public event, venue and organizer once (by ID and
                  by slug) so the store holds them; progress on stderr, the total on stdout
  --trust-proxy   which address is the client's (failed-login limits) behind proxies, as Express's
                  "trust proxy": false (default: the socket's peer), a number of proxies in front,
                  their addresses or subnets (10.0.0.0/8,loopback), or true (any X-Forwarded-For)
  --table-prefix  prefix of every table calpress creates (default cp_; "" for the unprefixed
                  tables of a database made before prefixes existed)
  --pg-extension  PostgreSQL: an extension calpress may create in its schema when missing
                  (repeatable; pg_trgm: the trigram indexes of search). Default none: one
                  already installed is used; without pg_trgm search scans
  --workers       serve from N worker processes on one port (auto: one per core); the primary
                  prepares the database, replaces a worker that dies and passes SIGTERM on.
                  Needs a database they share (a SQLite file, PostgreSQL, MariaDB)
  --worker-timeout  seconds a worker may leave the primary's liveness check unanswered (a stuck
                  event loop) before it is killed and replaced (default 30; 30 at least while starting)

  Environment: CALPRESS_SECRET, key material for application-password hashes and nonces kept
  outside the database (setting or changing it invalidates existing application passwords).`,
  migrate: `Usage: calpress migrate --db <target> [--table-prefix cp_] [--pg-extension pg_trgm]

  Creates the schema in a new database, or adds what an older one lacks.
  The directory of a SQLite file must exist.

  --table-prefix  prefix of every table calpress creates (default cp_), as in serve
  --pg-extension  PostgreSQL: an extension calpress may create when missing, as in serve`,
  fixture: `Usage: calpress fixture load <name|path> --db <target> [--plugin <file>[#export]]... [--table-prefix cp_]
                             [--pg-extension pg_trgm] [--force]
       calpress fixture generate [--events N] [--posts <type>:<count>]... [--plugin <file>[#export]]...
                                 [--seed S] [--out <file> | --db <target> [--table-prefix cp_]
                                 [--pg-extension pg_trgm] [--force]]

  load            load a fixture (a name under fixtures/, e.g. demo or minimal, or a path)
  generate        deterministic synthetic data for benchmarks: --events events and the
                  venues, organizers and terms to go with them (--seed varies it), written
                  to --out as JSON or loaded into --db; prints the users' logins and
                  application passwords
  --posts         generate posts of a post type a plugin registers (repeatable): a value for
                  each typed field, terms of its taxonomies, authors among the generated users
  --plugin        a module of yours exporting a function of the site that registers post
                  types, taxonomies and routes (its default export, its only function, or
                  #export); run before the fixture is loaded or generated (repeatable)
  --table-prefix  prefix of every table calpress creates (default cp_), as in serve
  --pg-extension  PostgreSQL: an extension calpress may create when missing, as in serve
  --force         load even when the site already has events (fixtures are meant for an
                  empty site; with --force their records are added to what is there)`,
  user: `Usage: calpress user add <login> --role <role> [--email <e>] [--app-password <pw>] --db <target>
                        [--table-prefix cp_]

  roles: administrator, editor, author, contributor, subscriber
  Without --app-password a random application password is generated and printed once.
  One with fewer than 16 letters and digits is accepted with a warning (tests and demos).
  Environment: CALPRESS_SECRET (see calpress serve --help) must be the same as the server's.

  --table-prefix  prefix of every table calpress creates (default cp_), as in serve`,
  import: `Usage: calpress import ics <file|url> --db <target> [--as <login>] [--source <name>] [--restore]
                           [--time-limit <seconds>] [--table-prefix cp_]

  Creates or updates (by UID) an event for each VEVENT of the file: title, description,
  dates and time zones, all-day, location (venue), organizer, categories, URL and
  recurrence with its exceptions. Prints what was created, updated and skipped, and why.
  A URL is fetched from public hosts only, at most 10 MiB. Everything in the file is
  sanitised as for a user without unfiltered_html. A file past one of the import's
  budgets (10 MiB, 200,000 lines, components nested 10 deep, 5,000 VEVENTs, 50,000
  occurrences, time-zone rules) is refused with nothing written; events not reached
  within the time limit are skipped (import again to go on: what came in is skipped).

  --as            the user who imports (default: the first administrator)
  --source        where the file comes from: its UIDs match only events imported from the
                  same source (default: the URL, else the calendar's X-WR-RELCALID or X-WR-CALNAME)
  --restore       publish again events an editor unpublished or trashed since they were imported
  --time-limit    seconds of writing before the rest is skipped (default 60; 0: no limit)
  --table-prefix  prefix of every table calpress creates (default cp_), as in serve`,
  option: `Usage: calpress option get <name> --db <target> [--table-prefix cp_]
       calpress option set <name> <value> --db <target> [--table-prefix cp_]

  webhook_url     POST every change to this http(s) URL ("" stops sending)
  webhook_secret  sign webhooks: X-Calpress-Signature: sha256=<HMAC-SHA-256 of the body>
  home, siteurl   the site URL generated URLs are built from, read at start ("" for none)
  timezone, blogname, blogdescription, posts_per_page, default_language …

  --table-prefix  prefix of every table calpress creates (default cp_), as in serve`,
};
