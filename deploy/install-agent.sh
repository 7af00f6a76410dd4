#!/usr/bin/env bash
# Installs the Warren agent on a tunnel host (Debian or Ubuntu) and enrols it with its panel.
# The panel serves this script (GET <panel>/api/agent/install.sh) and prints the line that runs it
# in a node's enrolment command, e.g.
#   (script=$(curl -fsSL -k --pinnedpubkey 'sha256//…' 'https://panel:8443/x7k2/api/agent/install.sh') \
#     && WARREN_ENROL_SECRET='wne_…' bash -c "$script" install-agent.sh --controller 'https://panel:8443/x7k2' --pin sha256:…)
# What it does (docs/operations.md, "Agents on other hosts"):
#   1. installs the host tools from Debian (WireGuard, nftables, iproute2, the outbounds' redsocks,
#      shadowsocks-libev and dnsmasq, npm to install the agent);
#   2. checks the panel's certificate against --pin before it downloads anything from it;
#   3. downloads the agent's package from the panel (its own build: the same version) into
#      /opt/warren-agent/releases/<version> and installs its dependencies with npm, Node itself
#      included (the `node` package, pinned as the panel pins it: the system's Node is not used);
#      /opt/warren-agent/current points at it, and the launcher (the agent's rollback watchdog for
#      updates from the panel) is /opt/warren-agent/warren-agent-launcher;
#   4. writes /etc/warren/agent.env (0600) and the unit warren-agent.service, starts it with the
#      enrolment secret once, waits for the enrolment, then removes the secret from agent.env.
# Run again to upgrade (the agent's identity is kept; with a new --enrol it enrols again). A run
# that fails removes what it had created (a first install leaves nothing) and says what remains.
#
# Options:
#   --controller URL     the panel's address with its base path (required)
#   --enrol SECRET       the node's one-time enrolment secret (wne_…); needed once (or WARREN_ENROL_SECRET
#                        in the environment, as the printed command passes it: not readable by other users)
#   --pin sha256:HEX     the panel's self-made certificate's pin (also spelt --ca-pin)
#   --ca FILE            a PEM the panel's certificate chains to, instead of a pin
#   --netns NAME         run the agent's host commands in this network namespace (tests)
#   --allow-insecure-http  accept an http:// panel (its credential then crosses the network readable)
#   --help
# Environment (tests and unusual hosts):
#   WARREN_INSTALL_ROOT=DIR       install under DIR instead of / (no root needed then)
#   WARREN_INSTALL_PREFIX=DIR     where the agent goes (default <root>/opt/warren-agent)
#   WARREN_INSTALL_SKIP_APT=1     do not install Debian packages (they are also skipped when present)
#   WARREN_INSTALL_SKIP_SYSTEMD=1 no unit: run the agent in the foreground instead (it enrols, then runs);
#                                 needed where systemd is not running (a container: no <root>/run/systemd/system)
#   WARREN_INSTALL_NPM_FLAGS=…    extra npm install flags (e.g. --prefer-offline)
# Exit codes: 0 done; 1 a step failed (its message says which); 2 bad usage (unknown option,
# missing value); 3 the panel's certificate does not match --pin (nothing was downloaded).
set -euo pipefail

usage() {
  # Not read from this file: piped from curl, the script has no file.
  cat <<'USAGE'
usage: install-agent.sh --controller URL [--enrol SECRET] [--pin sha256:HEX | --ca FILE] [--netns NAME]
Installs the Warren agent from the panel at URL (its base path included) and enrols it (as root).
  --controller URL     the panel's address with its base path (required)
  --enrol SECRET       the node's one-time enrolment secret (wne_...); needed once
                       (or WARREN_ENROL_SECRET in the environment, which other users cannot read)
  --pin sha256:HEX     the panel's self-made certificate's pin (also spelt --ca-pin)
  --ca FILE            a PEM the panel's certificate chains to, instead of a pin
  --netns NAME         run the agent's host commands in this network namespace (tests)
  --allow-insecure-http  accept an http:// panel (the credential then crosses the network readable)
Environment: WARREN_INSTALL_ROOT, WARREN_INSTALL_PREFIX, WARREN_INSTALL_SKIP_APT=1,
WARREN_INSTALL_SKIP_SYSTEMD=1 (run the agent in the foreground), WARREN_INSTALL_NPM_FLAGS.
Exit codes: 0 done, 1 a step failed, 2 bad usage, 3 the certificate does not match --pin.
USAGE
}
fail() { echo "install-agent.sh: $*" >&2; exit 1; }
bad_usage() {
  echo "install-agent.sh: $*" >&2
  echo "usage: install-agent.sh --controller URL [--enrol SECRET] [--pin sha256:HEX | --ca FILE] [--netns NAME] (--help for more)" >&2
  exit 2
}

# The secret may come in the environment (WARREN_ENROL_SECRET, as the printed command gives it):
# other users of the host can read a process's arguments (/proc/<pid>/cmdline), not its environment.
CONTROLLER='' ENROL=${WARREN_ENROL_SECRET:-} PIN='' CA='' NETNS='' INSECURE=0
while [ $# -gt 0 ]; do
  flag=$1
  case "$flag" in
    --help | -h) usage; exit 0 ;;
    --allow-insecure-http) INSECURE=1; shift ;;
    --controller | --enrol | --pin | --ca-pin | --ca | --netns)
      [ $# -ge 2 ] && [ -n "$2" ] || bad_usage "$flag needs a value"
      case "$flag" in
        --controller) CONTROLLER=${2%/} ;;
        --enrol) ENROL=$2 ;;
        --pin | --ca-pin) PIN=$(printf '%s' "$2" | tr 'A-F' 'a-f') ;;
        --ca) CA=$2 ;;
        --netns) NETNS=$2 ;;
      esac
      shift 2 ;;
    *) bad_usage "unknown option $flag" ;;
  esac
done
[ -n "$CONTROLLER" ] || bad_usage "--controller URL is required"
case "$CONTROLLER" in
  https://*) ;;
  http://*) [ "$INSECURE" = 1 ] || bad_usage "--controller $CONTROLLER is plain http://, where the enrolment secret and the node credential cross the network readable: use the panel's https:// address, or add --allow-insecure-http to accept that" ;;
  *) bad_usage "--controller must be an https:// URL" ;;
esac
[ -z "$PIN" ] || [[ "$PIN" =~ ^sha256:[0-9a-f]{64}$ ]] || bad_usage "--pin must be sha256: and 64 hex digits, as the enrolment command prints it"
[ -z "$PIN" ] || [ -z "$CA" ] || bad_usage "give --pin or --ca, not both"
[ -z "$CA" ] || [ -r "$CA" ] || bad_usage "--ca $CA: no such file"

ROOT=${WARREN_INSTALL_ROOT:-}
PREFIX=${WARREN_INSTALL_PREFIX:-$ROOT/opt/warren-agent}
DATA_DIR=$ROOT/var/lib/warren-agent
ETC=$ROOT/etc/warren
ENV_FILE=$ETC/agent.env
UNIT_DIR=$ROOT/etc/systemd/system
SKIP_SYSTEMD=${WARREN_INSTALL_SKIP_SYSTEMD:-0}

if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then fail "run as root (the agent creates interfaces and firewall rules): sudo -s, then the command again"; fi
# Before anything is installed: a host without a running systemd (a container, a chroot, WSL
# without it) has systemctl yet cannot start the unit. /run/systemd/system exists exactly when
# systemd is the running init (what sd_booted() checks).
if [ "$SKIP_SYSTEMD" != 1 ]; then
  command -v systemctl >/dev/null ||
    fail "systemd is needed to run the agent as a service, and this host has no systemctl: add WARREN_INSTALL_SKIP_SYSTEMD=1 to run the agent in the foreground instead (then keep it running yourself)"
  [ -d "$ROOT/run/systemd/system" ] ||
    fail "systemd is not running on this host (no $ROOT/run/systemd/system: a container?), so the agent's unit could not start: add WARREN_INSTALL_SKIP_SYSTEMD=1 to run the agent in the foreground instead (then keep it running yourself)"
fi

# What this run created (removed again if it fails) and what it changed in place (reported).
created=() changed=()
note_created() { [ -e "$1" ] || created+=("$1"); }
cleanup() {
  local status=$?
  rm -rf "${work:-}" "${stage:-}"
  [ "$status" -ne 0 ] || return 0
  if [ "${#created[@]}" -gt 0 ]; then
    # A unit this run created and enabled goes with its wants link, stopped first.
    if [ "${unit_enabled:-0}" = 1 ]; then systemctl disable --now --quiet warren-agent 2>/dev/null || true; fi
    rm -rf "${created[@]}"
    echo "install-agent.sh: removed what this run had created: ${created[*]}" >&2
  fi
  if [ "${#changed[@]}" -gt 0 ]; then
    echo "install-agent.sh: left as this run changed them (run this again to finish): ${changed[*]}" >&2
  elif [ "${#created[@]}" -eq 0 ]; then
    echo "install-agent.sh: nothing of the agent was installed" >&2
  fi
}
trap cleanup EXIT

# 1. Host tools. dnsmasq-base is dnsmasq without its system service: the agent runs its own.
# The same steps as install.sh's (this script is served alone, so it cannot share a file with it).
packages=(wireguard-tools wireguard-go nftables iproute2 redsocks shadowsocks-libev dnsmasq-base curl openssl ca-certificates)
# Any npm runs the install (Node itself comes pinned from npm): Debian's only when there is none
# (a NodeSource nodejs brings its own npm and conflicts with Debian's).
command -v npm >/dev/null || packages+=(npm)
if [ "${WARREN_INSTALL_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    command -v apt-get >/dev/null || fail "missing ${missing[*]} and no apt-get: this installer is for Debian and Ubuntu"
    echo "install-agent.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq </dev/null || fail "apt-get update failed (its output is above)"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null || fail "apt-get could not install ${missing[*]} (its output is above)"
  fi
fi
for tool in curl npm tar; do command -v "$tool" >/dev/null || fail "$tool is needed"; done

# 2. The panel's certificate, checked against the pin before anything is downloaded from it.
curl_trust=()
if [ -n "$PIN" ]; then
  command -v openssl >/dev/null || fail "openssl is needed to check --pin"
  authority=${CONTROLLER#https://}
  authority=${authority%%/*}
  case "$authority" in
    \[*\]:*) host=${authority%:*}; port=${authority##*:} ;;
    \[*\]) host=$authority; port=443 ;;
    *:*) host=${authority%:*}; port=${authority##*:} ;;
    *) host=$authority; port=443 ;;
  esac
  bare=${host#[}; bare=${bare%]}
  servername=()
  [[ "$bare" =~ ^[0-9.]+$ || "$bare" == *:* ]] || servername=(-servername "$bare")
  cert=$(openssl s_client -connect "$host:$port" "${servername[@]}" </dev/null 2>/dev/null | openssl x509 2>/dev/null) ||
    fail "no TLS answer from $host:$port (is --controller right, and the panel reachable from here?)"
  presented="sha256:$(printf '%s\n' "$cert" | openssl x509 -outform der | sha256sum | cut -d' ' -f1)"
  if [ "$presented" != "$PIN" ]; then
    echo "install-agent.sh: the panel at $host:$port presents a certificate whose pin is $presented, not $PIN: refusing to download anything from it (a different panel, a proxy in between, or a renewed certificate: copy the enrolment command again)" >&2
    exit 3
  fi
  key_pin="sha256//$(printf '%s\n' "$cert" | openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)"
  # -k: the chain and name are not checked; the key is, by its pin, on every download.
  curl_trust=(-k --pinnedpubkey "$key_pin")
elif [ -n "$CA" ]; then
  curl_trust=(--cacert "$CA")
fi

# 3. The agent's package, from the panel, installed with npm (Node comes with it), as a release
# beside any other: <prefix>/releases/<version>/, <prefix>/current -> it (switched atomically), so
# that an update from the panel (POST /api/nodes/{id}/update) can install the next one beside it
# and its launcher switch back (docs/agents.md, "Updating nodes").
work=$(mktemp -d)
echo "install-agent.sh: downloading the agent from $CONTROLLER"
curl -fsS "${curl_trust[@]}" -o "$work/agent.tgz" "$CONTROLLER/api/agent/package.tgz" || fail "could not download $CONTROLLER/api/agent/package.tgz"
if [ -e "$PREFIX" ]; then changed+=("$PREFIX"); else note_created "$PREFIX"; fi
install -d -m 0755 "$PREFIX" "$PREFIX/releases"
stage=$PREFIX/releases/.install-$$
mkdir "$stage"
tar -xzf "$work/agent.tgz" -C "$stage" --strip-components=1 --no-same-owner
# package.json is written two spaces deep, one field a line (agent-package.ts).
VERSION=$(sed -n 's/^  "version": "\([^"]*\)",\{0,1\}$/\1/p' "$stage/package.json" | head -n 1)
[[ "$VERSION" =~ ^[0-9A-Za-z][0-9A-Za-z._+-]*$ ]] || fail "the panel's package has no usable version ($VERSION)"
RELEASE=$PREFIX/releases/$VERSION
# A tree npm can update in place: this version's own (a second run), else the one of an install
# from before releases (everything directly in <prefix>).
if [ -d "$RELEASE/node_modules" ]; then
  mv "$RELEASE/node_modules" "$stage/"
elif [ -d "$PREFIX/node_modules" ] && [ ! -L "$PREFIX/current" ]; then
  mv "$PREFIX/node_modules" "$stage/"
fi
echo "install-agent.sh: installing its dependencies and Node (npm)"
# shellcheck disable=SC2086 # the extra flags are words
(cd "$stage" && npm install --omit=dev --no-audit --no-fund --loglevel=error ${WARREN_INSTALL_NPM_FLAGS:-} </dev/null >"$work/npm.log" 2>&1) ||
  { tail -n 30 "$work/npm.log" >&2; fail "npm install failed in $stage"; }
[ -x "$stage/node_modules/.bin/node" ] && [ -f "$stage/dist/apps/agent/src/main.js" ] ||
  fail "the package did not install an agent and its Node ($stage)"
rm -rf "$RELEASE"
mv "$stage" "$RELEASE"
# The build of an install from before releases goes (its node_modules moved above).
[ -L "$PREFIX/current" ] || rm -rf "$PREFIX/dist" "$PREFIX/bin" "$PREFIX/deploy" "$PREFIX/package.json" "$PREFIX/package-lock.json" "$PREFIX/.npmrc"
ln -sfn "releases/$VERSION" "$PREFIX/current.install-tmp"
mv -Tf "$PREFIX/current.install-tmp" "$PREFIX/current"
# An update the panel left pending is settled by this install; the launcher lives outside the
# releases (an update never replaces the watchdog that may have to undo it).
rm -f "$PREFIX/update-pending"
install -m 0755 "$RELEASE/bin/warren-agent-launcher" "$PREFIX/warren-agent-launcher"
NODE=$PREFIX/current/node_modules/.bin/node
echo "install-agent.sh: agent installed in $PREFIX ($("$NODE" --version))"

# 4. Settings, then the unit (or the foreground agent).
note_created "$ETC"
note_created "$DATA_DIR"
install -d -m 0755 "$ETC"
install -d -m 0700 "$DATA_DIR"
if [ -n "$CA" ]; then note_created "$ETC/panel-ca.pem"; install -m 0644 "$CA" "$ETC/panel-ca.pem"; fi
{
  echo "# warren-agent settings (written by install-agent.sh; warren-agent --help lists them)"
  echo "WARREN_CONTROLLER_URL=$CONTROLLER"
  echo "WARREN_AGENT_DATA_DIR=$DATA_DIR"
  [ -z "$PIN" ] || echo "WARREN_CONTROLLER_PIN=$PIN"
  [ -z "$CA" ] || echo "WARREN_CONTROLLER_CA=$ETC/panel-ca.pem"
  [ -z "$NETNS" ] || echo "WARREN_NETNS=$NETNS"
  [ "$INSECURE" = 0 ] || echo "WARREN_ALLOW_INSECURE_HTTP=1"
} >"$work/agent.env"
if [ -e "$ENV_FILE" ]; then changed+=("$ENV_FILE"); else note_created "$ENV_FILE"; fi
install -m 0600 "$work/agent.env" "$ENV_FILE"

identity=$DATA_DIR/agent.json
if [ -z "$ENROL" ] && [ ! -e "$identity" ]; then
  fail "this host is not enrolled yet: give --enrol SECRET (the node's enrolment command in the panel)"
fi

if [ "$SKIP_SYSTEMD" = 1 ]; then
  echo "install-agent.sh: no systemd (WARREN_INSTALL_SKIP_SYSTEMD=1): running the agent in the foreground"
  set -a
  # shellcheck disable=SC1090
  . "$ENV_FILE"
  set +a
  [ -z "$ENROL" ] || export WARREN_ENROL_SECRET=$ENROL
  rm -rf "$work"
  exec "$PREFIX/warren-agent-launcher" "$PREFIX"
fi

if [ -e "$UNIT_DIR/warren-agent.service" ]; then changed+=("$UNIT_DIR/warren-agent.service"); else note_created "$UNIT_DIR/warren-agent.service"; fi
sed -e "s|/opt/warren-agent|$PREFIX|g" -e "s|/var/lib/warren-agent|$DATA_DIR|g" -e "s|/etc/warren/|$ETC/|g" "$RELEASE/deploy/warren-agent.service" >"$UNIT_DIR/warren-agent.service"
systemctl daemon-reload
systemctl enable --quiet warren-agent
unit_enabled=1
if [ -n "$ENROL" ]; then
  # The secret is in the settings for one start only: the agent exchanges it for its credential
  # (agent.json), then it goes again. A stored identity is replaced by a new enrolment.
  before=$(stat -c %Y "$identity" 2>/dev/null || echo 0)
  echo "WARREN_ENROL_SECRET=$ENROL" >>"$ENV_FILE"
  systemctl restart warren-agent
  echo "install-agent.sh: enrolling"
  enrolled=0
  for _ in $(seq 1 120); do
    now=$(stat -c %Y "$identity" 2>/dev/null || echo 0)
    if [ "$now" != 0 ] && [ "$now" != "$before" ]; then enrolled=1; break; fi
    if ! systemctl is-active --quiet warren-agent && [ "$(systemctl show -p NRestarts --value warren-agent)" -gt 2 ]; then break; fi
    sleep 1
  done
  sed -i '/^WARREN_ENROL_SECRET=/d' "$ENV_FILE"
  if [ "$enrolled" != 1 ]; then
    journalctl -u warren-agent -n 30 --no-pager -o cat >&2 || true
    # Installed and enabled: it stays (it is what a second run finishes), stopped, and is named.
    systemctl disable --now --quiet warren-agent || true
    unit_enabled=0 created=() changed=("$PREFIX" "$ENV_FILE" "$UNIT_DIR/warren-agent.service (stopped, disabled)")
    fail "the agent did not enrol (its log is above); the secret stays valid until used: fix and run this again"
  fi
else
  systemctl restart warren-agent
fi
echo "install-agent.sh: warren-agent is running and enrolled (systemctl status warren-agent; journalctl -u warren-agent)"
