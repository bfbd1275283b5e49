#!/usr/bin/env bash
# Shared set-up for scripts/run and scripts/test: a Python >= 3.12 virtual
# environment in .venv with the project installed. Safe to run again: it only
# reinstalls when pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {
  local candidates=()
  if command -v pyenv >/dev/null 2>&1; then
    local root; root=$(pyenv root)
    for v in "$root"/versions/3.13* "$root"/versions/3.12*; do
      [ -x "$v/bin/python3" ] && candidates+=("$v/bin/python3")
    done
  fi
  candidates+=(python3.13 python3.12 python3)
  for py in "${candidates[@]}"; do
    if command -v "$py" >/dev/null 2>&1 \
      && "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
      echo "$py"; return 0
    fi
  done
  echo "No Python >= 3.12 found (pyenv install 3.12, or your package manager)." >&2
  return 1
}

if [ ! -x .venv/bin/python ]; then
  py=$(find_python)
  echo "setup: creating .venv with $py" >&2
  "$py" -m venv .venv
fi

apt_install() {
  # Debian packages the tests need (chromium for browser tests, redis-server
  # for the worker test). Needs root or sudo.
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ ! -f /tmp/.socialsite-apt-updated ]; then
    $sudo apt-get update -qq >/dev/null && touch /tmp/.socialsite-apt-updated
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

apt_packages=()
if [ "${SETUP_BROWSER:-0}" = "1" ] && [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing Debian's chromium for the browser tests" >&2
  apt_packages+=(chromium)
fi
if [ "${SETUP_REDIS:-0}" = "1" ] && ! command -v redis-server >/dev/null 2>&1; then
  echo "setup: installing Debian's redis-server for the worker test" >&2
  apt_packages+=(redis-server)
fi
# An independent ActivityPub implementation for the federation tests
# (tests/federation/fedify.py): Fedify's library, on the machine's Node.js.
fedify_pid=""
if [ "${SETUP_FEDIFY:-0}" = "1" ] && [ ! -d .fedify/node_modules/@fedify/fedify ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "setup: installing Fedify (npm) for the federation tests" >&2
    npm install --prefix .fedify --no-audit --no-fund --silent @fedify/fedify@1.5.9 >/dev/null 2>&1 &
    fedify_pid=$!
  else
    echo "setup: no npm here: the Fedify test will be skipped" >&2
  fi
fi
# apt-get and pip run side by side: neither waits on the other's downloads.
apt_pid=""
if [ "${#apt_packages[@]}" -gt 0 ]; then
  apt_install "${apt_packages[@]}" &
  apt_pid=$!
fi

# scripts/run needs the site's packages only; scripts/test (SETUP_DEV=1) adds
# the test tools. A .venv with the tools serves the site too.
hash=$(sha1sum pyproject.toml | cut -c1-12)
if [ "${SETUP_DEV:-0}" = "1" ]; then
  wanted=(".venv/.installed-$hash-dev")
  spec=".[dev]"
  imports="import django, mongoengine, mongomock, gunicorn, pytest, playwright, xdist"
else
  wanted=(".venv/.installed-$hash-dev" ".venv/.installed-$hash-site")
  spec="."
  imports="import django, mongoengine, mongomock, gunicorn"
fi
installed=""
for stamp in "${wanted[@]}"; do [ -f "$stamp" ] && installed=1; done
if [ -z "$installed" ]; then
  echo "setup: installing the project$([ "$spec" = "." ] || echo " and its dev tools") into .venv" >&2
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  PYTHONWARNINGS=ignore .venv/bin/python -m pip install -q -e "$spec" 2>&1 | grep -v "^WARNING: Location" >&2 || true
  .venv/bin/python -c "$imports" \
    || { echo "setup: installing Python packages failed" >&2; exit 1; }
  if [ "${SETUP_DEV:-0}" = "1" ]; then
    rm -f .venv/.installed-*
  else
    rm -f .venv/.installed-*-site
  fi
  touch "${wanted[-1]}"
fi

if [ -n "$fedify_pid" ] && ! wait "$fedify_pid"; then
  echo "setup: npm install @fedify/fedify failed" >&2
  exit 1
fi
if [ -n "$apt_pid" ] && ! wait "$apt_pid"; then
  echo "setup: apt-get install ${apt_packages[*]} failed" >&2
  exit 1
fi
