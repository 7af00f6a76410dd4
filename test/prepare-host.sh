#!/usr/bin/env bash
# The host tools the tests use, installed from Debian when missing (as root, or through
# password-less sudo); says what it installs. Run by `npm test` before anything else.
# - wireguard-tools, wireguard-go, iproute2, nftables: the agent's drivers, tested on real tunnels
#   in network namespaces (no WireGuard kernel module here: wireguard-go);
# - iputils-ping, curl: traffic through those tunnels; iperf3: speed limits and quota overshoot measured through them
#   (test/e2e/speed-limits.spec.ts; tc and ifb come with iproute2 and the kernel);
# - redsocks, shadowsocks-libev (ss-redir, ss-local, ss-server), dnsmasq-base: the agent's hops and
#   domain rules; microsocks: a real SOCKS5 proxy for them to go through (test/e2e/agent-hops.spec.ts);
# - redis-server: a private Redis when none is reachable (test/global-setup.js);
# - chromium: the browser the web panel's tests drive through playwright-core (test/web/; no
#   browser download works here, so Debian's build it is).
# PostgreSQL needs nothing from Debian: without a reachable one the tests run embedded-postgres.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

packages=(wireguard-tools wireguard-go nftables iproute2 iputils-ping iperf3 redis-server curl microsocks shadowsocks-libev redsocks dnsmasq-base chromium)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "test/prepare-host.sh: missing ${missing[*]} and no apt-get here: install them, or expect the tests that need them to fail" >&2
  exit 0
fi
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}
echo "test/prepare-host.sh: installing ${missing[*]} from Debian"
as_root apt-get update -qq </dev/null
# redis-server's package starts a service on 6379 where systemd runs; the tests start their own
# only when none answers, so an installed-and-running one is simply used.
as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
# shadowsocks-libev's and redsocks' packages enable a system service; the agent runs its own
# instances (on ports of its own), so a service started by the install is harmless but unneeded.
