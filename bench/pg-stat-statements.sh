#!/usr/bin/env bash
# Enables pg_stat_statements on this machine's PostgreSQL (Debian's
# postgresql-15 layout), so that `bench/run.ts --db postgres` can report
# the database's own time per request (db ms/req, stmts/req). Run as root:
#
#   bench/pg-stat-statements.sh [--force]
#
# The library must be preloaded, which takes a restart of the server: the
# script refuses while a calpress database has sessions (a test or a
# benchmark running against it) unless --force is given. It adds
# pg_stat_statements to whatever shared_preload_libraries holds now, in a
# conf.d file of its own, and turns on track_planning: planning is part of
# the database's time per request (calpress's frequent reads are named
# prepared statements, planned once per connection; the others are planned
# on every run). Idempotent; the CI (.ci/run) does not need it.
set -euo pipefail

VERSION="${PG_VERSION:-15}"
CLUSTER="${PG_CLUSTER:-main}"
CONF_DIR="/etc/postgresql/$VERSION/$CLUSTER/conf.d"
CONF_FILE="$CONF_DIR/95-pg-stat-statements.conf"
PSQL=(psql -h 127.0.0.1 -U postgres -d postgres -XAtq)

force=0
[ "${1:-}" = "--force" ] && force=1

[ -d "$CONF_DIR" ] || { echo "no $CONF_DIR: is PostgreSQL $VERSION ($CLUSTER) installed here?" >&2; exit 1; }

current="$("${PSQL[@]}" -c "SHOW shared_preload_libraries")"
planning="$("${PSQL[@]}" -c "SELECT coalesce(current_setting('pg_stat_statements.track_planning', true), '')")"
if [[ ",${current// /}," == *",pg_stat_statements,"* ]] && [ "$planning" = "on" ]; then
  echo "pg_stat_statements is already loaded (shared_preload_libraries = '$current', track_planning = on)"
  exit 0
fi

busy="$("${PSQL[@]}" -c "SELECT count(*) FROM pg_stat_activity WHERE datname LIKE 'calpress%'")"
if [ "$busy" != "0" ] && [ "$force" != "1" ]; then
  echo "$busy session(s) on calpress databases: a restart would break them. Wait for 0 (or pass --force)." >&2
  exit 2
fi

# Keep what is preloaded already (from another file); this file is read late (95-) and so decides.
libs="pg_stat_statements"
if [ -n "$current" ] && [[ ",${current// /}," != *",pg_stat_statements,"* ]]; then libs="$current, pg_stat_statements"; fi
if [[ ",${current// /}," == *",pg_stat_statements,"* ]]; then libs="$current"; fi
cat >"$CONF_FILE" <<EOF
# Written by calpress's bench/pg-stat-statements.sh: the database's own time per request in the benchmark.
shared_preload_libraries = '$libs'
pg_stat_statements.track_planning = on
EOF
echo "wrote $CONF_FILE; restarting PostgreSQL $VERSION/$CLUSTER"
pg_ctlcluster "$VERSION" "$CLUSTER" restart
for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 && break; sleep 1; done
echo "shared_preload_libraries = '$("${PSQL[@]}" -c "SHOW shared_preload_libraries")'"
