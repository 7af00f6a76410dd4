#!/usr/bin/env bash
# Installs Warren from this checkout as a systemd service: code in /opt/warren, system user
# `warren`, state in /var/lib/warren, settings in /etc/warren/warren.env. Run as root; run again to
# upgrade. Needs npm (any Node: Node 24 itself comes from npm) and systemd. With no DATABASE_URL
# in warren.env the panel runs its embedded PostgreSQL in the state directory.
set -euo pipefail

PREFIX=/opt/warren
DATA_DIR=/var/lib/warren
ENV_FILE=/etc/warren/warren.env
SOURCE=$(cd "$(dirname "$0")/.." && pwd)

[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root" >&2; exit 1; }
command -v npm >/dev/null || { echo "install.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
command -v systemctl >/dev/null || { echo "install.sh: systemd is needed" >&2; exit 1; }

id warren >/dev/null 2>&1 || useradd --system --home-dir "$DATA_DIR" --shell /usr/sbin/nologin warren
install -d -m 0750 -o warren -g warren "$DATA_DIR"
install -d -m 0755 "$PREFIX" /etc/warren

echo "install.sh: copying $SOURCE to $PREFIX and installing Node dependencies"
if [ "$SOURCE" != "$PREFIX" ]; then
  tar -C "$SOURCE" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./.git -cf - . | tar -C "$PREFIX" -xf -
fi
(cd "$PREFIX" && npm install --no-audit --no-fund </dev/null && npm run build)

if [ ! -e "$ENV_FILE" ]; then
  install -m 0640 -g warren /dev/null "$ENV_FILE"
  cat >"$ENV_FILE" <<'ENV'
# Warren settings (README.md, "Configuration"). Unset DATABASE_URL/REDIS_URL: embedded PostgreSQL.
#WARREN_PORT=8443
#WARREN_BASE_PATH=/choose-a-secret-prefix
#DATABASE_URL=postgres://warren:password@127.0.0.1:5432/warren
#REDIS_URL=redis://127.0.0.1:6379
ENV
fi

sed -e "s|/opt/warren|$PREFIX|g" -e "s|/var/lib/warren|$DATA_DIR|g" "$PREFIX/deploy/warren.service" \
  >/etc/systemd/system/warren.service
systemctl daemon-reload
started=$(date '+%Y-%m-%d %H:%M:%S')
systemctl enable warren
systemctl restart warren

# The owner account exists once the panel has started; only then can a token be issued for it.
echo "install.sh: waiting for the panel to start"
for _ in $(seq 1 120); do
  journalctl -u warren --since "$started" -o cat | grep -q 'warren: panel listening on' && break
  systemctl is-failed --quiet warren && { journalctl -u warren -n 30 --no-pager; exit 1; }
  sleep 1
done
journalctl -u warren --since "$started" -o cat | grep 'warren: panel listening on' || { echo "install.sh: the panel did not start" >&2; exit 1; }
journalctl -u warren --since "$started" -o cat | grep 'created the owner account' || true

echo "install.sh: an API token for the installer (shown once):"
# The same user and environment as the service, so the CLI finds the panel's database.
runuser -u warren -- env WARREN_DATA_DIR="$DATA_DIR" bash -c 'set -a; . "$1"; set +a; exec "$2/node_modules/.bin/node" "$2/dist/apps/controller/src/cli/main.js" token issue --name installer' \
  install.sh "$ENV_FILE" "$PREFIX"
