export const HELP: Record<string, string> = {
  main: `Usage: calpress <command> [options]

Commands:
  serve                 serve the REST API (and the demo site on first start)
  migrate               create or update the database schema
  fixture load <name>   load a fixture (a name under fixtures/ or a path)
  fixture generate      write deterministic synthetic data for benchmarks
  user add <login>      create a user (or change its role) and add an application password
  option get|set        read or write a site option (e.g. webhook_url, webhook_secret)

Run "calpress <command> --help" for the options of a command; "calpress --version" (-v) prints the version.`,
  serve: `Usage: calpress serve [--port 8080] [--host 127.0.0.1] [--db <target>]
                      [--fixture <name|path>] [--timezone <IANA zone>]
                      [--rest-prefix /wp-json] [--user <login>:<password>:<role>]...
                      [--answer-store <file> [--warm]] [--force]

  --port          port to listen on; 0 takes a free port (default 8080)
  --host          address to bind (default 127.0.0.1)
  --db            SQLite file, :memory:, sqlite:<path>, postgres://… or mysql://…
                  (default ./data/calpress.sqlite: ./data is created and a new default
                  database gets the demo; the directory of any other SQLite file must exist)
  --fixture       load this fixture into the (empty) database before serving
  --force         with --fixture: load it even when the site already has events (adds to them)
  --timezone      site time zone option (default UTC, or the stored option)
  --rest-prefix   path of the REST root (default /wp-json)
  --user          make sure this user exists with this role and application password (repeatable)
  --answer-store  keep anonymous answers of single events, venues and organizers in this SQLite
                  file and reuse them while nothing they show changed (SQLite and PostgreSQL)
  --warm          after start, request every public event, venue and organizer once (by ID and
                  by slug) so the store holds them; progress on stderr, the total on stdout`,
  migrate: `Usage: calpress migrate --db <target>

  Creates the schema in a new database, or adds what an older one lacks.
  The directory of a SQLite file must exist.`,
  fixture: `Usage: calpress fixture load <name|path> --db <target> [--force]
       calpress fixture generate --events N [--seed S] [--out <file> | --db <target> [--force]]

  load        load a fixture (a name under fixtures/, e.g. demo or minimal, or a path)
  generate    deterministic synthetic data for benchmarks: --events events and the
              venues, organizers and terms to go with them (--seed varies it), written
              to --out as JSON or loaded into --db; prints the users' logins and
              application passwords
  --force     load even when the site already has events (fixtures are meant for an
              empty site; with --force their records are added to what is there)`,
  user: `Usage: calpress user add <login> --role <role> [--email <e>] [--app-password <pw>] --db <target>

  roles: administrator, editor, author, contributor, subscriber
  Without --app-password a random application password is generated and printed once.`,
  option: `Usage: calpress option get <name> --db <target>
       calpress option set <name> <value> --db <target>

  webhook_url     POST every change to this http(s) URL ("" stops sending)
  webhook_secret  sign webhooks: X-Calpress-Signature: sha256=<HMAC-SHA-256 of the body>
  timezone, blogname, blogdescription, posts_per_page, default_language …`,
};
