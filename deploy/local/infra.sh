#!/usr/bin/env bash
# Makes sure this machine has what the Tidemark fleet needs, and that PostgreSQL, Redis and NATS
# (JetStream) answer on their ports. Idempotent: on a machine where everything is installed and
# running it only checks, in well under a second.
#
#   bash deploy/local/infra.sh            # run it
#   source deploy/local/infra.sh && tidemark_infra_up   # from another script (start.sh, test.sh)
#
# Environment (all optional):
#   PGHOST, PGPORT          PostgreSQL (default 127.0.0.1:5432; else taken from DATABASE_URL)
#   PGUSER                  user for the auth check (default: from DATABASE_URL, else postgres)
#   REDIS_HOST, REDIS_PORT  Redis (default 127.0.0.1:6379; else taken from REDIS_URL)
#   NATS_HOST, NATS_PORT    NATS (default 127.0.0.1:4222; else taken from the first NATS_URL)
#   TIDEMARK_SKIP_CHROMIUM=1  don't install Debian's chromium (the browser tier needs it)
#   TIDEMARK_INFRA_WAIT     seconds to wait for a started service's port (default 30)
#
# A server is only started (and its package only installed) when its host is loopback and
# nothing answers on its port. Installing packages and starting PostgreSQL need root; Redis and
# NATS are started as whoever runs this, with their data and logs under <repo>/.tidemark/.
#
# Progress goes to stderr, one short line per step, prefixed "[infra]".

# The body runs in a subshell (note the parentheses), so sourcing this file changes nothing in the
# caller's shell but adding the function: no options, no variables, and `exit` on failure only
# leaves the subshell, returning non-zero to the caller.
tidemark_infra_up() (
  set -euo pipefail

  local script_dir repo
  script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  repo="$(cd "$script_dir/../.." && pwd)"
  local state="$repo/.tidemark"
  local wait_s="${TIDEMARK_INFRA_WAIT:-30}"

  log() { printf '[infra] %s\n' "$*" >&2; }
  die() {
    printf '[infra] ERROR: %s\n' "$*" >&2
    exit 1
  }
  is_root() { [[ "$(id -u)" == 0 ]]; }
  is_loopback() {
    case "$1" in
      localhost | 127.* | ::1 | '[::1]' | 0:0:0:0:0:0:0:1) return 0 ;;
      *) return 1 ;;
    esac
  }
  # True when host:port accepts a TCP connection within a second.
  port_open() {
    local host="${1#[}" port="$2"
    host="${host%]}"
    if command -v timeout >/dev/null 2>&1; then
      # shellcheck disable=SC2016 # expanded by the inner bash
      timeout 1 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null
    else
      bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null
    fi
  }
  # wait_port NAME HOST PORT LOG: waits up to $wait_s seconds, then fails naming the log.
  wait_port() {
    local name="$1" host="$2" port="$3" logfile="$4" i
    for ((i = 0; i < wait_s * 5; i++)); do
      port_open "$host" "$port" && return 0
      sleep 0.2
    done
    local tail_text=''
    [[ -r "$logfile" ]] && tail_text="$(tail -n 15 "$logfile" 2>/dev/null || true)"
    die "$name did not come up on $host:$port within ${wait_s}s; see its log $logfile${tail_text:+
--- last lines of $logfile ---
$tail_text}"
  }
  # url_part URL host|port: host or port of scheme://[user[:pass]@]host[:port][/...].
  url_part() {
    local rest="${1#*://}"
    rest="${rest%%/*}"
    rest="${rest%%\?*}"
    rest="${rest##*@}"
    local host port=''
    if [[ "$rest" == \[* ]]; then
      host="${rest%%]*}]"
      [[ "$rest" == *"]:"* ]] && port="${rest##*]:}"
    else
      host="${rest%%:*}"
      [[ "$rest" == *:* ]] && port="${rest##*:}"
    fi
    if [[ "$2" == host ]]; then printf '%s' "$host"; else printf '%s' "$port"; fi
  }

  # --- where the services are -------------------------------------------------------------
  local pg_host pg_port pg_user redis_host redis_port nats_host nats_port nats_first
  pg_host="${PGHOST:-}"
  pg_port="${PGPORT:-}"
  pg_user="${PGUSER:-}"
  if [[ -n "${DATABASE_URL:-}" ]]; then
    [[ -n "$pg_host" ]] || pg_host="$(url_part "$DATABASE_URL" host)"
    [[ -n "$pg_port" ]] || pg_port="$(url_part "$DATABASE_URL" port)"
    if [[ -z "$pg_user" ]]; then
      local auth="${DATABASE_URL#*://}"
      auth="${auth%%/*}"
      [[ "$auth" == *@* ]] && pg_user="${auth%%@*}" && pg_user="${pg_user%%:*}"
    fi
  fi
  # A socket directory in PGHOST (/var/run/postgresql) is not a TCP host: the fleet uses TCP.
  [[ -z "$pg_host" || "$pg_host" == /* ]] && pg_host=127.0.0.1
  pg_port="${pg_port:-5432}"
  pg_user="${pg_user:-postgres}"

  redis_host="${REDIS_HOST:-}"
  redis_port="${REDIS_PORT:-}"
  if [[ -n "${REDIS_URL:-}" ]]; then
    [[ -n "$redis_host" ]] || redis_host="$(url_part "$REDIS_URL" host)"
    [[ -n "$redis_port" ]] || redis_port="$(url_part "$REDIS_URL" port)"
  fi
  redis_host="${redis_host:-127.0.0.1}"
  redis_port="${redis_port:-6379}"

  nats_host="${NATS_HOST:-}"
  nats_port="${NATS_PORT:-}"
  if [[ -n "${NATS_URL:-}" ]]; then
    nats_first="${NATS_URL%%,*}"
    [[ "$nats_first" == *://* ]] || nats_first="nats://$nats_first"
    [[ -n "$nats_host" ]] || nats_host="$(url_part "$nats_first" host)"
    [[ -n "$nats_port" ]] || nats_port="$(url_part "$nats_first" port)"
  fi
  nats_host="${nats_host:-127.0.0.1}"
  nats_port="${nats_port:-4222}"

  local pg_up=0 redis_up=0 nats_up=0
  port_open "$pg_host" "$pg_port" && pg_up=1
  port_open "$redis_host" "$redis_port" && redis_up=1
  port_open "$nats_host" "$nats_port" && nats_up=1

  # --- pnpm -------------------------------------------------------------------------------
  if command -v pnpm >/dev/null 2>&1; then
    :
  else
    command -v npm >/dev/null 2>&1 || die "neither pnpm nor npm is installed: install Node.js 20 (with npm) first"
    log "pnpm missing: npm i -g pnpm@12"
    if ! npm i -g pnpm@12 >&2; then
      is_root && die "npm i -g pnpm@12 failed"
      die "npm i -g pnpm@12 failed: run it as root, or set a user-writable npm prefix (npm config set prefix ~/.local)"
    fi
    hash -r
    command -v pnpm >/dev/null 2>&1 || die "pnpm was installed but is not on PATH (npm prefix: $(npm prefix -g)/bin)"
  fi

  # --- Debian packages --------------------------------------------------------------------
  # Each is needed only when its server must be started here (loopback host, port closed),
  # chromium always unless skipped.
  local -a missing=()
  local pg_fresh=0
  if ((!pg_up)) && is_loopback "$pg_host"; then
    if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! compgen -G '/etc/postgresql/*/main' >/dev/null; then
      missing+=(postgresql)
    fi
  fi
  if ((!redis_up)) && is_loopback "$redis_host" && ! command -v redis-server >/dev/null 2>&1; then
    missing+=(redis-server)
  fi
  if ((!nats_up)) && is_loopback "$nats_host" && ! command -v nats-server >/dev/null 2>&1 &&
    [[ ! -x /usr/sbin/nats-server ]]; then
    missing+=(nats-server)
  fi
  if [[ "${TIDEMARK_SKIP_CHROMIUM:-0}" != 1 && ! -x /usr/bin/chromium ]]; then
    missing+=(chromium)
  fi
  if ((${#missing[@]})); then
    if ! is_root; then
      local hint=''
      [[ " ${missing[*]} " == *" chromium "* ]] && hint=' (or set TIDEMARK_SKIP_CHROMIUM=1 to go without the browser tier)'
      die "missing Debian packages: ${missing[*]}. As root run: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}$hint"
    fi
    command -v apt-get >/dev/null 2>&1 || die "missing packages ${missing[*]} and no apt-get here: install them by hand"
    [[ " ${missing[*]} " == *" postgresql "* ]] && pg_fresh=1
    mkdir -p "$state"
    local apt_log="$state/apt.log"
    log "installing ${missing[*]} (apt-get; output in $apt_log)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -o DPkg::Lock::Timeout=120 >"$apt_log" 2>&1 ||
      die "apt-get update failed; see $apt_log: $(tail -n 5 "$apt_log")"
    apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=120 "${missing[@]}" >>"$apt_log" 2>&1 ||
      die "apt-get install ${missing[*]} failed; see $apt_log: $(tail -n 5 "$apt_log")"
    log "installed ${missing[*]}"
    # A package's own scripts may have started its server on the standard port: look again.
    port_open "$pg_host" "$pg_port" && pg_up=1
    port_open "$redis_host" "$redis_port" && redis_up=1
    port_open "$nats_host" "$nats_port" && nats_up=1
  fi

  # --- PostgreSQL -------------------------------------------------------------------------
  local pg_version='' pg_log=''
  if [[ -d /etc/postgresql ]]; then
    # shellcheck disable=SC2012
    pg_version="$(ls /etc/postgresql | head -1)"
    [[ -n "$pg_version" ]] && pg_log="/var/log/postgresql/postgresql-$pg_version-main.log"
  fi
  # A cluster this script just installed is ours to configure: the fleet connects as postgres
  # over loopback TCP without a password, as on this project's machines. A server that was
  # already there is never rewritten; a missing trust rule is reported below instead.
  if ((pg_fresh)) && [[ -n "$pg_version" && -f "/etc/postgresql/$pg_version/main/pg_hba.conf" ]]; then
    local hba="/etc/postgresql/$pg_version/main/pg_hba.conf"
    if ! grep -Eq '^[[:space:]]*host[[:space:]]+all[[:space:]]+(all|postgres)[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
      log "fresh PostgreSQL $pg_version: trusting user postgres on loopback in $hba"
      {
        printf '# Added by tidemark deploy/local/infra.sh: the fleet connects as postgres over loopback.\n'
        printf 'host all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust\n'
        cat "$hba"
      } >"$hba.tidemark" && cat "$hba.tidemark" >"$hba" && rm -f "$hba.tidemark"
      pg_ctlcluster --skip-systemctl-redirect "$pg_version" main reload >/dev/null 2>&1 || true
    fi
  fi
  if ((pg_up)); then
    log "postgres $pg_host:$pg_port up"
  elif ! is_loopback "$pg_host"; then
    die "PostgreSQL at $pg_host:$pg_port does not answer (not a loopback host, so not started here)"
  else
    [[ -n "$pg_version" ]] || die "PostgreSQL is not running on $pg_host:$pg_port and no cluster exists under /etc/postgresql (create one: pg_createcluster <version> main)"
    if pg_ctlcluster "$pg_version" main status >/dev/null 2>&1; then
      local conf_port
      conf_port="$(sed -nE 's/^[[:space:]]*port[[:space:]]*=[[:space:]]*([0-9]+).*/\1/p' "/etc/postgresql/$pg_version/main/postgresql.conf" 2>/dev/null | tail -1)"
      die "PostgreSQL cluster $pg_version/main is running but nothing answers on $pg_host:$pg_port (its postgresql.conf says port ${conf_port:-?}, listen_addresses must include $pg_host): fix PGHOST/PGPORT/DATABASE_URL or the cluster's config; see $pg_log"
    fi
    is_root || die "PostgreSQL is not running on $pg_host:$pg_port; as root run: pg_ctlcluster --skip-systemctl-redirect $pg_version main start"
    log "postgres $pg_host:$pg_port down: starting cluster $pg_version/main"
    pg_ctlcluster --skip-systemctl-redirect "$pg_version" main start >&2 ||
      die "pg_ctlcluster $pg_version main start failed; see $pg_log"
    wait_port "PostgreSQL ($pg_version/main)" "$pg_host" "$pg_port" "$pg_log"
    log "postgres $pg_host:$pg_port up (started)"
  fi
  # The fleet's default DATABASE_URL has no password: check that the server lets it in.
  if command -v psql >/dev/null 2>&1; then
    local pg_err
    local -a conn
    if [[ -n "${DATABASE_URL:-}" ]]; then
      conn=("$DATABASE_URL")
    else
      conn=(-h "${pg_host#[}" -p "$pg_port" -U "$pg_user" -d postgres)
      conn[1]="${conn[1]%]}"
    fi
    if ! pg_err="$(PGCONNECT_TIMEOUT=5 psql -w -X -q -A -t "${conn[@]}" -c 'select 1' 2>&1 >/dev/null)"; then
      # A missing database still proves the login worked (creating it is not this script's job).
      if [[ "$pg_err" != *"database \""*"\" does not exist"* ]]; then
        local fix=''
        if is_loopback "$pg_host" && [[ -n "$pg_version" ]] &&
          [[ "$pg_err" == *password* || "$pg_err" == *authentication* || "$pg_err" == *"pg_hba.conf"* ]]; then
          fix=" The fleet expects trust auth for $pg_user on loopback: add 'host all $pg_user 127.0.0.1/32 trust' (and ::1/128) above the other host lines of /etc/postgresql/$pg_version/main/pg_hba.conf and run 'pg_ctlcluster $pg_version main reload', or put a password in DATABASE_URL."
        fi
        die "PostgreSQL at $pg_host:$pg_port refuses user $pg_user: ${pg_err//$'\n'/ }.$fix"
      fi
    fi
  fi

  # --- Redis ------------------------------------------------------------------------------
  if ((redis_up)); then
    log "redis $redis_host:$redis_port up"
  elif ! is_loopback "$redis_host"; then
    die "Redis at $redis_host:$redis_port does not answer (not a loopback host, so not started here)"
  else
    # Standard port: .tidemark/redis; any other gets its own names, so two never share files.
    local redis_name=redis
    [[ "$redis_port" == 6379 ]] || redis_name="redis-$redis_port"
    local redis_dir="$state/$redis_name" redis_log="$state/$redis_name.log"
    mkdir -p "$redis_dir"
    log "redis $redis_host:$redis_port down: starting redis-server (dir $redis_dir, log $redis_log)"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$redis_port" --save "" --appendonly no \
      --dir "$redis_dir" --logfile "$redis_log" >&2 ||
      die "redis-server failed to start; see $redis_log"
    wait_port "Redis" "$redis_host" "$redis_port" "$redis_log"
    log "redis $redis_host:$redis_port up (started)"
  fi

  # --- NATS (JetStream) -------------------------------------------------------------------
  if ((nats_up)); then
    log "nats $nats_host:$nats_port up"
  elif ! is_loopback "$nats_host"; then
    die "NATS at $nats_host:$nats_port does not answer (not a loopback host, so not started here)"
  else
    # Standard port: .tidemark/nats; any other gets its own store (JetStream locks it), log, pid.
    local nats_name=nats
    [[ "$nats_port" == 4222 ]] || nats_name="nats-$nats_port"
    local nats_bin nats_dir="$state/$nats_name" nats_log="$state/$nats_name.log" nats_pid="$state/$nats_name.pid"
    nats_bin="$(command -v nats-server 2>/dev/null || echo /usr/sbin/nats-server)"
    mkdir -p "$nats_dir"
    log "nats $nats_host:$nats_port down: starting nats-server -js (store $nats_dir, log $nats_log)"
    local -a nats_args=(-a 127.0.0.1 -p "$nats_port" -js -sd "$nats_dir" -l "$nats_log")
    if command -v start-stop-daemon >/dev/null 2>&1; then
      # The pid file makes the "already running?" test about this server, not any nats-server.
      start-stop-daemon --start --oknodo --background --make-pidfile --pidfile "$nats_pid" \
        --exec "$nats_bin" -- "${nats_args[@]}" >&2 ||
        die "start-stop-daemon could not start nats-server; see $nats_log"
    else
      nohup "$nats_bin" "${nats_args[@]}" >/dev/null 2>&1 &
      echo $! >"$nats_pid"
    fi
    wait_port "NATS" "$nats_host" "$nats_port" "$nats_log"
    log "nats $nats_host:$nats_port up (started)"
  fi

  if [[ "${TIDEMARK_SKIP_CHROMIUM:-0}" == 1 ]]; then
    log "chromium skipped (TIDEMARK_SKIP_CHROMIUM=1)"
  else
    log "chromium /usr/bin/chromium present"
  fi
)

# Executed directly (not sourced): run it.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  tidemark_infra_up "$@"
fi
