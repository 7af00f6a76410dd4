#!/usr/bin/env bash
# Installs Warren (the panel and the agent of its own host) from this checkout on Debian or
# Ubuntu, as systemd services; run again to upgrade in place. Run as root from the checkout:
#   sudo deploy/install.sh
# What it does (docs/operations.md, "Installing"):
#   1. installs the Debian packages the panel and its host's agent need: wireguard-tools,
#      wireguard-go, nftables, iproute2; redsocks, shadowsocks-libev, dnsmasq-base (outbounds);
#      redis-server (the job queues: remote agents can be enrolled only with Redis); npm;
#   2. creates the system user `warren`, the state directory /var/lib/warren and /etc/warren;
#   3. copies the checkout to /opt/warren and installs it with npm (Node itself is the pinned
#      `node` package: the system's Node only runs npm), then builds it;
#   4. first install only: writes /etc/warren/warren.env with a random base path (WARREN_BASE_PATH)
#      and owner password (WARREN_ADMIN_PASSWORD), WARREN_LOCAL_AGENT=external and REDIS_URL;
#   5. writes the units warren.service (the panel, as `warren`) and warren-local-agent.service (its
#      host's agent, as root: the panel does not start it itself, see that unit) and (re)starts them;
#   6. first install only: issues the API token `installer` (`warren token issue`);
#   7. prints the summary (URL with the base path: WARREN_PUBLIC_URL, else WARREN_HOST unless it is
#      every address, else this host's first address; username, password, API token) and keeps it in
#      /etc/warren/install-summary (0600). An upgrade keeps warren.env and the summary, issues
#      nothing, and prints the summary again.
# Settings for the first install, from the environment (written to warren.env): WARREN_PORT,
# WARREN_HOST, WARREN_PUBLIC_URL, WARREN_TLS_CERT, WARREN_TLS_KEY, DATABASE_URL (unset: embedded
# PostgreSQL in /var/lib/warren), REDIS_URL (unset: the local redis-server), WARREN_QUEUE_PREFIX.
# Environment for tests and unusual hosts:
#   WARREN_INSTALL_ROOT=DIR        install under DIR instead of / (no root needed, no user made:
#                                  the current user runs the panel)
#   WARREN_INSTALL_PREFIX=DIR      where Warren goes (default <root>/opt/warren)
#   WARREN_INSTALL_SKIP_APT=1      no Debian packages (also skipped one by one when installed)
#   WARREN_INSTALL_SKIP_BUILD=1    the prefix holds a built Warren already: no copy, npm or build
#   WARREN_INSTALL_SKIP_SYSTEMD=1  units are written but not started: the panel is started in the
#                                  background for the first-install steps, then stopped
# Options: --help. Exit codes: 0 done; 1 a step failed (its message says which); 2 bad usage.
set -euo pipefail

fail() { echo "install.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --help | -h) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $1 (settings come from the environment: --help)" >&2; exit 2 ;;
  esac
done

SOURCE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${WARREN_INSTALL_ROOT:-}
PREFIX=${WARREN_INSTALL_PREFIX:-$ROOT/opt/warren}
DATA_DIR=$ROOT/var/lib/warren
ETC=$ROOT/etc/warren
ENV_FILE=$ETC/warren.env
SUMMARY=$ETC/install-summary
UNIT_DIR=$ROOT/etc/systemd/system
SKIP_SYSTEMD=${WARREN_INSTALL_SKIP_SYSTEMD:-0}

if [ -z "$ROOT" ]; then
  [ "$(id -u)" -eq 0 ] || fail "run as root"
  SERVICE_USER=warren
else
  SERVICE_USER=$(id -un)
fi
SERVICE_GROUP=$(id -gn "$SERVICE_USER" 2>/dev/null || echo "$SERVICE_USER")
[ "$SKIP_SYSTEMD" = 1 ] || command -v systemctl >/dev/null || fail "systemd is needed (or WARREN_INSTALL_SKIP_SYSTEMD=1)"

# 1. Debian packages. dnsmasq-base: dnsmasq without its system service (the agent runs its own).
packages=(wireguard-tools wireguard-go nftables iproute2 redsocks shadowsocks-libev dnsmasq-base openssl ca-certificates)
# Any npm runs the install (Node itself comes pinned from npm): Debian's only when there is none
# (a NodeSource nodejs brings its own npm and conflicts with Debian's).
command -v npm >/dev/null || packages+=(npm)
[ -n "${REDIS_URL:-}" ] || [ -e "$ENV_FILE" ] || packages+=(redis-server)
if [ "${WARREN_INSTALL_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    command -v apt-get >/dev/null || fail "missing ${missing[*]} and no apt-get: this installer is for Debian and Ubuntu"
    echo "install.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq </dev/null || fail "apt-get update failed (its output is above)"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null || fail "apt-get could not install ${missing[*]} (its output is above)"
  fi
fi

# 2. User and directories. local-agent/ is made here, the panel's: the root agent must not make it.
if [ -z "$ROOT" ] && ! id warren >/dev/null 2>&1; then
  useradd --system --home-dir "$DATA_DIR" --shell /usr/sbin/nologin warren
fi
install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_GROUP" "$DATA_DIR"
install -d -m 0700 -o "$SERVICE_USER" -g "$SERVICE_GROUP" "$DATA_DIR/local-agent"
install -d -m 0755 "$ETC" "$UNIT_DIR"

# 3. The code.
if [ "${WARREN_INSTALL_SKIP_BUILD:-0}" != 1 ]; then
  command -v npm >/dev/null || fail "npm is needed"
  install -d -m 0755 "$PREFIX"
  echo "install.sh: copying $SOURCE to $PREFIX and installing it (npm install, npm run build)"
  if [ "$SOURCE" != "$PREFIX" ]; then
    tar -C "$SOURCE" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./.git -cf - . | tar -C "$PREFIX" -xf -
  fi
  (cd "$PREFIX" && npm install --no-audit --no-fund --loglevel=error </dev/null && npm run build --silent) >"$ETC/.install-npm.log" 2>&1 ||
    { tail -n 30 "$ETC/.install-npm.log" >&2; fail "npm install or build failed in $PREFIX (whole log: $ETC/.install-npm.log)"; }
  rm -f "$ETC/.install-npm.log"
fi
NODE=$PREFIX/node_modules/.bin/node
[ -x "$NODE" ] && [ -f "$PREFIX/dist/apps/controller/src/main.js" ] || fail "no built Warren in $PREFIX"

# 4. Settings: made once, kept by every later run (an upgrade changes nothing in them).
random_text() { tr -dc "$1" </dev/urandom 2>/dev/null | head -c "$2" || true; }
first_install=0
if [ ! -e "$ENV_FILE" ]; then
  first_install=1
  # Made 0600 before a byte is written: it holds the owner's password (and a database URL).
  install -m 0600 /dev/null "$ETC/.warren.env.new"
  {
    echo "# Warren settings (README.md, \"Configuration\"), made by install.sh on its first run; kept by upgrades."
    echo "# The owner password is used only when the owner account is created (the first start)."
    echo "WARREN_BASE_PATH=/$(random_text 'a-z0-9' 12)"
    echo "WARREN_ADMIN_USERNAME=${WARREN_ADMIN_USERNAME:-admin}"
    echo "WARREN_ADMIN_PASSWORD=$(random_text 'A-Za-z0-9' 20)"
    echo "# The agent of this host runs in warren-local-agent.service (root); the panel does not start it."
    echo "WARREN_LOCAL_AGENT=external"
    echo "REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}"
    for name in WARREN_PORT WARREN_HOST WARREN_PUBLIC_URL WARREN_TLS_CERT WARREN_TLS_KEY DATABASE_URL WARREN_QUEUE_PREFIX; do
      [ -z "${!name:-}" ] || echo "$name=${!name}"
    done
  } >"$ETC/.warren.env.new"
  install -m 0640 -o root -g "$SERVICE_GROUP" "$ETC/.warren.env.new" "$ENV_FILE" 2>/dev/null || install -m 0600 "$ETC/.warren.env.new" "$ENV_FILE"
  rm -f "$ETC/.warren.env.new"
fi
setting() { (set -a; . "$ENV_FILE"; set +a; eval "printf '%s' \"\${$1:-}\"") 2>/dev/null; }

# 5. Units, with this install's paths.
render() {
  sed -e "s|/opt/warren/|$PREFIX/|g" -e "s|/var/lib/warren/|$DATA_DIR/|g" -e "s|/var/lib/warren\$|$DATA_DIR|g" \
    -e "s|/etc/warren/|$ETC/|g" -e "s|^User=warren|User=$SERVICE_USER|" -e "s|^Group=warren|Group=$SERVICE_GROUP|" \
    -e "s|^WorkingDirectory=/opt/warren\$|WorkingDirectory=$PREFIX|" -e "s|^ReadWritePaths=/var/lib/warren\$|ReadWritePaths=$DATA_DIR|" "$1" >"$2"
}
render "$PREFIX/deploy/warren.service" "$UNIT_DIR/warren.service"
render "$PREFIX/deploy/warren-local-agent.service" "$UNIT_DIR/warren-local-agent.service"

# The `warren` command (docs/operations.md, "The command line on an installed host"): the CLI on
# the pinned Node, as the panel's user, with the panel's settings.
BIN_DIR=${ROOT}/usr/local/bin
install -d -m 0755 "$BIN_DIR"
cat >"$BIN_DIR/warren.new" <<WRAPPER
#!/bin/sh
# Made by Warren's install.sh: runs the panel's command line as the panel does.
set -a; . '$ENV_FILE'; set +a
export WARREN_DATA_DIR='$DATA_DIR'
if [ "\$(id -un)" = '$SERVICE_USER' ]; then exec '$NODE' '$PREFIX/dist/apps/controller/src/cli/main.js' "\$@"; fi
exec runuser -u '$SERVICE_USER' -- '$NODE' '$PREFIX/dist/apps/controller/src/cli/main.js' "\$@"
WRAPPER
chmod 0755 "$BIN_DIR/warren.new" && mv "$BIN_DIR/warren.new" "$BIN_DIR/warren"

LOG=$DATA_DIR/install-start.log
panel_pid=''
if [ "$SKIP_SYSTEMD" = 1 ]; then
  if [ "$first_install" = 1 ] || [ ! -e "$SUMMARY" ]; then
    echo "install.sh: no systemd (WARREN_INSTALL_SKIP_SYSTEMD=1): starting the panel for the first-install steps"
    (set -a; . "$ENV_FILE"; set +a; export WARREN_DATA_DIR="$DATA_DIR"; cd "$PREFIX" && exec "$NODE" dist/apps/controller/src/main.js) >"$LOG" 2>&1 &
    panel_pid=$!
    trap '[ -z "$panel_pid" ] || { kill "$panel_pid" 2>/dev/null; wait "$panel_pid" 2>/dev/null || true; }' EXIT
  fi
else
  systemctl daemon-reload
  started=$(date '+%Y-%m-%d %H:%M:%S')
  systemctl enable --quiet warren warren-local-agent
  systemctl restart warren
  systemctl restart warren-local-agent
fi

panel_log() {
  if [ "$SKIP_SYSTEMD" = 1 ]; then cat "$LOG" 2>/dev/null; else journalctl -u warren --since "$started" -o cat 2>/dev/null; fi
}
panel_failed() {
  if [ "$SKIP_SYSTEMD" = 1 ]; then ! kill -0 "$panel_pid" 2>/dev/null; else systemctl is-failed --quiet warren; fi
}
if [ "$SKIP_SYSTEMD" != 1 ] || [ -n "$panel_pid" ]; then
  echo "install.sh: waiting for the panel to start"
  for _ in $(seq 1 180); do
    panel_log | grep -q 'warren: panel listening on' && break
    panel_failed && { panel_log | tail -n 30 >&2; fail "the panel did not start (its log is above)"; }
    sleep 1
  done
  panel_log | grep -q 'warren: panel listening on' || { panel_log | tail -n 30 >&2; fail "the panel did not start within 3 minutes"; }
fi

# 6. The installer's API token: issued once, on the run that writes the summary.
if [ ! -e "$SUMMARY" ]; then
  echo "install.sh: issuing the API token \"installer\""
  cli() {
    # The panel's user and settings, so the CLI finds the panel's database.
    local command=(env WARREN_DATA_DIR="$DATA_DIR" bash -c 'set -a; . "$1"; set +a; shift; exec "$@"' cli "$ENV_FILE" "$NODE" "$PREFIX/dist/apps/controller/src/cli/main.js" "$@")
    if [ -z "$ROOT" ]; then runuser -u "$SERVICE_USER" -- "${command[@]}"; else "${command[@]}"; fi
  }
  token=$(cli token issue --name installer --quiet) || fail "could not issue the API token (warren token issue)"

  port=$(setting WARREN_PORT)
  [ -n "$port" ] || port=8443
  scheme=https
  case "$(setting WARREN_TLS)" in off | false | 0) scheme=http ;; esac
  public=$(setting WARREN_PUBLIC_URL)
  if [ -z "$public" ]; then
    # Where the panel listens when that is one address; this host's first address when it
    # listens on all of them (the default).
    address=$(setting WARREN_HOST)
    case "$address" in '' | 0.0.0.0 | :: | '[::]') address=$(hostname -I 2>/dev/null | awk '{print $1}') ;; esac
    address=${address#[}; address=${address%]}
    [ -n "$address" ] || address=$(hostname -f 2>/dev/null || hostname)
    case "$address" in *:*) address="[$address]" ;; esac
    public="$scheme://$address:$port"
  fi
  install -m 0600 /dev/null "$ETC/.install-summary.new"
  {
    echo "Warren panel, installed $(date -u '+%Y-%m-%d %H:%M UTC') by deploy/install.sh"
    echo "URL:       ${public%/}$(setting WARREN_BASE_PATH)/"
    echo "Username:  $(setting WARREN_ADMIN_USERNAME)"
    echo "Password:  $(setting WARREN_ADMIN_PASSWORD)"
    echo "API token: $token"
    if [ "$scheme" = https ] && [ -z "$(setting WARREN_TLS_CERT)" ]; then
      echo "The panel serves a certificate it made itself (browsers warn once); its SHA-256:"
      echo "  $(openssl x509 -in "$DATA_DIR/tls/cert.pem" -noout -fingerprint -sha256 2>/dev/null | cut -d= -f2)"
    fi
    echo "Settings: $ENV_FILE. Change the password after signing in; this file is kept for upgrades (0600)."
  } >"$ETC/.install-summary.new"
  install -m 0600 "$ETC/.install-summary.new" "$SUMMARY"
  rm -f "$ETC/.install-summary.new"
  echo
  cat "$SUMMARY"
else
  # Not printed again: the password and token may have changed since, and an upgrade's output
  # lands in logs (terminals, CI, configuration management).
  echo "install.sh: upgraded in place; settings, password, base path and API token unchanged (the first run's summary: $SUMMARY, 0600)"
fi
