#!/usr/bin/env bash
# Starts the services that hookgate's tests talk to, installing them from
# Debian's packages when they are missing, and prints the environment the
# tests read as `export NAME=value` lines on stdout (everything else goes to
# stderr), so a test script can do:
#
#   eval "$(scripts/services.sh)"
#
#   HOOKGATE_PG_DSN      PostgreSQL: a private cluster on 127.0.0.1:55432
#                        (database hookgate), unless the variable is already
#                        set, in which case it is passed through untouched.
#   HOOKGATE_REDIS_ADDR  Redis on 127.0.0.1:56379, likewise.
#   HOOKGATE_NGINX       the nginx binary (Debian's /usr/sbin/nginx), for the
#                        fleet test, which runs it as its own child on
#                        loopback; nothing is started here.
#   HOOKGATE_CHROMIUM    Debian's headless-capable Chromium (/usr/bin/chromium),
#                        for the console's browser test; checked by starting
#                        it headless once (a Chromium that cannot start fails
#                        here, loudly).
#
# Idempotent and fast when the services already run. Works as root on a
# fresh Debian machine (the servers then run as the postgres and redis
# users) and as an ordinary user who has the packages. Everything listens on
# loopback only. The data lives under $HOOKGATE_SERVICES_DIR
# (/tmp/hookgate-services by default) and is for tests: durability is
# switched off for speed.
#
# Knobs: HOOKGATE_PG_PORT (55432), HOOKGATE_REDIS_PORT (56379),
# HOOKGATE_SERVICES_DIR, HOOKGATE_SERVICES=pg,redis,nginx,chromium (which ones).
set -euo pipefail

PG_PORT=${HOOKGATE_PG_PORT:-55432}
REDIS_PORT=${HOOKGATE_REDIS_PORT:-56379}
DIR=${HOOKGATE_SERVICES_DIR:-/tmp/hookgate-services}
WANT=${HOOKGATE_SERVICES:-pg,redis,nginx,chromium}
PG_USER=hookgate
PG_DB=hookgate

log() { echo "services: $*" >&2; }
die() { log "$*"; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# emit NAME VALUE prints an export line that eval reads back exactly.
emit() { printf "export %s='%s'\n" "$1" "${2//\'/\'\\\'\'}"; }

apt_updated=
# Another apt run (unattended upgrades on a fresh machine) may hold apt's
# locks for minutes: wait for them rather than fail.
APT_LOCK_WAIT=${HOOKGATE_APT_LOCK_WAIT:-300}
apt_install() {
  is_root || die "$* missing and not root: install it (apt-get install -y $*) or set the variable yourself"
  if [ -z "$apt_updated" ]; then
    log "apt-get update"
    local waited=0
    until apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" update -qq >&2; do
      [ "$waited" -lt "$APT_LOCK_WAIT" ] || die "apt-get update kept failing for ${APT_LOCK_WAIT}s"
      log "apt-get update failed (another apt run holds its lock?): retrying in 5s"
      sleep 5
      waited=$((waited + 5))
    done
    apt_updated=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" \
    install -y -qq --no-install-recommends "$@" >&2 || die "apt-get install $* failed"
}

# as USER CMD...: runs CMD as USER when root, as ourselves otherwise.
as() {
  local user=$1; shift
  if is_root; then
    runuser -u "$user" -- "$@"
  else
    "$@"
  fi
}

mkdir -p "$DIR"
chmod 755 "$DIR"
# One run at a time: two test runs starting together must not both initdb.
# The servers started below must not inherit the lock's descriptor (9>&-),
# or they would hold the lock for as long as they run.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$DIR/.lock"
  flock 9
fi

# ---------------------------------------------------------------- PostgreSQL

pg_bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then
    echo "$d"
    return
  fi
  if command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
  fi
}

pg_dsn() {
  local pass
  pass=$(cat "$DIR/pg.pass")
  echo "postgres://$PG_USER:$pass@127.0.0.1:$PG_PORT/$PG_DB?sslmode=disable"
}

pg_ready() {
  [ -f "$DIR/pg.pass" ] || return 1
  PGPASSWORD=$(cat "$DIR/pg.pass") "$PGBIN/psql" -qtAX -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d "$PG_DB" \
    -c 'select 1' >/dev/null 2>&1
}

start_pg() {
  if [ -n "${HOOKGATE_PG_DSN:-}" ]; then
    log "PostgreSQL: using HOOKGATE_PG_DSN from the environment"
    if command -v psql >/dev/null 2>&1; then
      psql "$HOOKGATE_PG_DSN" -qtAX -c 'select 1' >/dev/null 2>&1 ||
        die "HOOKGATE_PG_DSN from the environment does not answer (psql select 1 failed)"
    fi
    emit HOOKGATE_PG_DSN "$HOOKGATE_PG_DSN"
    return
  fi
  PGBIN=$(pg_bindir)
  if [ -z "$PGBIN" ]; then
    apt_install postgresql
    PGBIN=$(pg_bindir)
    [ -n "$PGBIN" ] || die "PostgreSQL installed but initdb not found"
  fi
  if pg_ready; then
    log "PostgreSQL: already running on 127.0.0.1:$PG_PORT"
    emit HOOKGATE_PG_DSN "$(pg_dsn)"
    return
  fi

  local owner=$USER_NAME data="$DIR/pg"
  if is_root; then
    owner=postgres
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi

  if [ ! -s "$data/PG_VERSION" ]; then
    log "PostgreSQL: initdb in $data"
    rm -rf "$data"
    mkdir -p "$data"
    (umask 077; head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DIR/pg.pass")
    # The server's user reads the password file once, through a copy it owns.
    cp "$DIR/pg.pass" "$data.pwfile"
    if is_root; then chown "$owner" "$data" "$data.pwfile"; fi
    chmod 700 "$data"
    as "$owner" "$PGBIN/initdb" -D "$data" -U "$PG_USER" --pwfile="$data.pwfile" \
      --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync >"$DIR/initdb.log" 2>&1 ||
      { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    rm -f "$data.pwfile"
  fi

  log "PostgreSQL: starting on 127.0.0.1:$PG_PORT"
  touch "$DIR/pg.log"
  mkdir -p "$DIR/pgsock"
  if is_root; then chown "$owner" "$DIR/pg.log" "$DIR/pgsock"; fi
  as "$owner" "$PGBIN/pg_ctl" -D "$data" -l "$DIR/pg.log" -w -t 60 \
    -o "-p $PG_PORT -k $DIR/pgsock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >&2 9>&- || { tail -n 30 "$DIR/pg.log" >&2; die "pg_ctl start failed"; }

  local pass
  pass=$(cat "$DIR/pg.pass")
  if ! PGPASSWORD=$pass "$PGBIN/psql" -qtAX -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres \
    -c "select 1 from pg_database where datname = '$PG_DB'" | grep -q 1; then
    log "PostgreSQL: creating database $PG_DB"
    PGPASSWORD=$pass "$PGBIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" "$PG_DB" >&2
  fi
  pg_ready || die "PostgreSQL started but does not answer on 127.0.0.1:$PG_PORT"
  emit HOOKGATE_PG_DSN "$(pg_dsn)"
}

# --------------------------------------------------------------------- Redis

redis_ready() {
  command -v redis-cli >/dev/null 2>&1 &&
    [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]
}

start_redis() {
  if [ -n "${HOOKGATE_REDIS_ADDR:-}" ]; then
    log "Redis: using HOOKGATE_REDIS_ADDR from the environment"
    emit HOOKGATE_REDIS_ADDR "$HOOKGATE_REDIS_ADDR"
    return
  fi
  if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    apt_install redis-server
  fi
  if redis_ready; then
    log "Redis: already running on 127.0.0.1:$REDIS_PORT"
  else
    log "Redis: starting on 127.0.0.1:$REDIS_PORT"
    local owner=$USER_NAME
    if is_root && id redis >/dev/null 2>&1; then owner=redis; fi
    mkdir -p "$DIR/redis"
    if is_root; then chown "$owner" "$DIR/redis"; fi
    as "$owner" redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --daemonize yes \
      --dir "$DIR/redis" --pidfile "$DIR/redis/redis.pid" --logfile "$DIR/redis/redis.log" \
      --save '' --appendonly no >&2 9>&-
    for _ in $(seq 1 100); do
      redis_ready && break
      sleep 0.1
    done
    redis_ready || { tail -n 20 "$DIR/redis/redis.log" >&2 || true; die "Redis did not answer on 127.0.0.1:$REDIS_PORT"; }
  fi
  emit HOOKGATE_REDIS_ADDR "127.0.0.1:$REDIS_PORT"
}

# tcp_answers HOST:PORT reports whether something accepts connections there.
tcp_answers() {
  local host=${1%:*} port=${1##*:}
  timeout 5 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
}

# An address handed in through the environment is checked too: a test run
# against a server that is not there would only skip or fail later, far
# from the cause.
check_redis_env() {
  [ -z "${HOOKGATE_REDIS_ADDR:-}" ] || tcp_answers "$HOOKGATE_REDIS_ADDR" ||
    die "HOOKGATE_REDIS_ADDR=$HOOKGATE_REDIS_ADDR does not accept connections"
}

# --------------------------------------------------------------------- nginx

# find_nginx installs Debian's nginx when it is missing and prints its
# path. The package may try to start its own server on port 80 (a
# container without an init refuses): the tests never use it.
find_nginx() {
  if [ -n "${HOOKGATE_NGINX:-}" ]; then
    [ -x "$HOOKGATE_NGINX" ] || die "HOOKGATE_NGINX=$HOOKGATE_NGINX is not an executable"
    log "nginx: using HOOKGATE_NGINX from the environment"
    emit HOOKGATE_NGINX "$HOOKGATE_NGINX"
    return
  fi
  if [ ! -x /usr/sbin/nginx ]; then
    apt_install nginx
  fi
  [ -x /usr/sbin/nginx ] || die "nginx installed but /usr/sbin/nginx not found"
  log "nginx: /usr/sbin/nginx"
  emit HOOKGATE_NGINX /usr/sbin/nginx
}

# ------------------------------------------------------------------ chromium

# find_chromium installs Debian's chromium when it is missing, starts it
# headless once on an empty page (with the flags the browser test uses,
# and a fresh profile), and prints its path. A Chromium that does not
# start stops the run here rather than in the middle of a test.
find_chromium() {
  local bin=${HOOKGATE_CHROMIUM:-/usr/bin/chromium}
  if [ ! -x "$bin" ]; then
    [ -z "${HOOKGATE_CHROMIUM:-}" ] || die "HOOKGATE_CHROMIUM=$HOOKGATE_CHROMIUM is not an executable"
    apt_install chromium
  fi
  [ -x "$bin" ] || die "chromium installed but $bin not found"
  local profile out
  profile=$(mktemp -d)
  if ! out=$(timeout 60 "$bin" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$profile" --dump-dom 'data:text/html,<p>hookgate-ok</p>' 2>/dev/null) ||
      [[ "$out" != *hookgate-ok* ]]; then
    rm -rf "$profile"
    die "chromium at $bin did not start headless and render a page: run it by hand with --headless --no-sandbox --dump-dom about:blank to see why"
  fi
  rm -rf "$profile"
  log "chromium: $bin ($("$bin" --version 2>/dev/null | head -1))"
  emit HOOKGATE_CHROMIUM "$bin"
}

USER_NAME=$(id -un)
case ",$WANT," in *,pg,*) start_pg ;; esac
case ",$WANT," in *,redis,*) check_redis_env; start_redis ;; esac
case ",$WANT," in *,nginx,*) find_nginx ;; esac
case ",$WANT," in *,chromium,*) find_chromium ;; esac
