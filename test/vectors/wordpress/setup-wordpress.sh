#!/usr/bin/env bash
# Stands up the reference WordPress the recorder (record.ts) talks to:
# Debian's wordpress package served by PHP's built-in server at
# http://127.0.0.1:8089, database wp_reference on the local MariaDB
# (127.0.0.1:3306, root, no password), content directory and state outside
# the repository in /var/lib/calpress-wordpress.
#
#   setup-wordpress.sh          install what is missing, reset the database
#                               (drop, create, install, fixtures), (re)start
#   setup-wordpress.sh start    start the server on the existing database
#   setup-wordpress.sh stop     stop the server this script started
#   setup-wordpress.sh status
#
# Needs root (apt-get, /etc/wordpress). Never starts a database server:
# MariaDB must already listen on 127.0.0.1:3306.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOST="${WP_REFERENCE_HOST:-127.0.0.1}"
PORT="${WP_REFERENCE_PORT:-8089}"
HOME_URL="http://$HOST:$PORT"
DB="wp_reference"
MYSQL=(mysql -h 127.0.0.1 -P 3306 -u root)
BASE="/var/lib/calpress-wordpress"
CONTENT="$BASE/wp-content"
CONFIG="/etc/wordpress/config-$HOST.php"
PIDFILE="$BASE/server.pid"
LOG="$BASE/server.log"
STATE="$BASE/state.json"

log() { printf '[setup-wordpress] %s\n' "$*" >&2; }

install_packages() {
  if [ -f /usr/share/wordpress/wp-includes/version.php ] && command -v php >/dev/null \
     && php -m | grep -qi '^mysqli$'; then
    return
  fi
  log "installing Debian's wordpress and PHP (apache2 comes as a dependency; it is not started)"
  # wordpress depends on apache2 | httpd: keep apt from starting any service
  # (port 80) when no policy is in place already.
  local made_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    wordpress wordpress-theme-twentytwentythree php-cli php-mysql php-mbstring php-xml php-curl >/dev/null
  if [ -n "$made_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
}

check_database() {
  if ! "${MYSQL[@]}" -e 'SELECT 1' >/dev/null 2>&1; then
    log "MariaDB does not answer at 127.0.0.1:3306 as root without password"
    exit 1
  fi
}

lay_files() {
  mkdir -p "$CONTENT/mu-plugins" "$CONTENT/plugins" "$CONTENT/themes" "$CONTENT/uploads"
  ln -sfn /usr/share/wordpress/wp-content/themes/twentytwentythree "$CONTENT/themes/twentytwentythree"
  install -m 0644 "$HERE/calpress-reference.php" "$CONTENT/mu-plugins/calpress-reference.php"
  install -m 0644 "$HERE/router.php" "$BASE/router.php"
  mkdir -p /etc/wordpress
  cat > "$CONFIG" <<PHP
<?php
// Written by calpress's test/vectors/wordpress/setup-wordpress.sh.
define( 'DB_NAME', '$DB' );
define( 'DB_USER', 'root' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', '127.0.0.1:3306' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
define( 'WP_HOME', '$HOME_URL' );
define( 'WP_SITEURL', '$HOME_URL' );
define( 'WP_CONTENT_DIR', '$CONTENT' );
define( 'WP_CONTENT_URL', '$HOME_URL/wp-content' );
// Application Passwords over plain http need a local environment.
define( 'WP_ENVIRONMENT_TYPE', 'local' );
define( 'WP_DEBUG', false );
define( 'WP_DEBUG_DISPLAY', false );
define( 'DISABLE_WP_CRON', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
define( 'AUTH_KEY', 'calpress-reference-auth-key' );
define( 'SECURE_AUTH_KEY', 'calpress-reference-secure-auth-key' );
define( 'LOGGED_IN_KEY', 'calpress-reference-logged-in-key' );
define( 'NONCE_KEY', 'calpress-reference-nonce-key' );
define( 'AUTH_SALT', 'calpress-reference-auth-salt' );
define( 'SECURE_AUTH_SALT', 'calpress-reference-secure-auth-salt' );
define( 'LOGGED_IN_SALT', 'calpress-reference-logged-in-salt' );
define( 'NONCE_SALT', 'calpress-reference-nonce-salt' );
\$table_prefix = 'wp_';
PHP
}

reset_database() {
  log "recreating database $DB"
  "${MYSQL[@]}" -e "DROP DATABASE IF EXISTS \`$DB\`; CREATE DATABASE \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;"
  (cd "$HERE" && php -d display_errors=stderr setup.php "$HOME_URL" "$STATE") >&2
}

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

stop_server() {
  if running; then
    log "stopping server $(cat "$PIDFILE")"
    kill "$(cat "$PIDFILE")"
    for _ in $(seq 1 50); do running || break; sleep 0.1; done
  fi
  rm -f "$PIDFILE"
}

start_server() {
  if running; then return; fi
  log "starting PHP's server at $HOME_URL (log: $LOG)"
  # One worker: requests are answered one at a time, in the recorder's order.
  setsid php -S "$HOST:$PORT" -t /usr/share/wordpress "$BASE/router.php" >"$LOG" 2>&1 < /dev/null &
  echo $! > "$PIDFILE"
  for _ in $(seq 1 100); do
    if curl -fsS -o /dev/null "$HOME_URL/wp-json/" 2>/dev/null; then return; fi
    sleep 0.1
  done
  log "server did not answer; see $LOG"
  exit 1
}

case "${1:-reset}" in
  reset)
    install_packages; check_database; mkdir -p "$BASE"; lay_files
    stop_server; reset_database; start_server
    log "ready: $HOME_URL (users and ids in $STATE)";;
  start) lay_files; start_server;;
  stop) stop_server;;
  status) if running; then echo "running ($(cat "$PIDFILE")) at $HOME_URL"; else echo "stopped"; fi;;
  *) echo "usage: $0 [reset|start|stop|status]" >&2; exit 2;;
esac
