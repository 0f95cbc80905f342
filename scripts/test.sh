#!/usr/bin/env bash
# Install what the tests need (apache2, nginx, wrk, strace; Python deps in .venv) and run the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
have() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ]; }
# mod_wsgi (which Debian enables on install), mod_php (whose install switches the machine to
# mpm_prefork) and php-fpm: the suite must pass with the third-party modules real servers
# carry, not only with Debian's default module set.
if ! have apache2 || ! have nginx || ! have wrk || ! have strace \
   || [ ! -e /usr/lib/apache2/modules/mod_wsgi.so ] || ! compgen -G '/usr/sbin/php-fpm*' >/dev/null \
   || ! compgen -G '/usr/lib/apache2/modules/libphp*.so' >/dev/null \
   || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y apache2 nginx wrk strace python3-venv \
    libapache2-mod-wsgi-py3 php-fpm libapache2-mod-php
fi
# Debian's packages start the system services; the tests use their own private servers
# on free loopback ports and never touch these.
python3 -m venv .venv
.venv/bin/pip install --quiet --upgrade pip
.venv/bin/pip install --quiet -e '.[test]'

# Every command must work from the declared dependencies alone: a plain `pip install .`
# (no extras) in a venv of its own, each command run once on the demo site. Exit 0/1 is an
# answer; 2 (bad input: the input is good) or a traceback is a failure.
bare_smoke() {
  local venv="$PWD/.venv-bare" demo="$PWD/fixtures/demo-site" log status failed=0
  python3 -m venv --clear "$venv"
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet .
  log="$(mktemp)"
  run() {
    status=0
    # from /: nothing but the installed package (not the source tree) is importable
    (cd / && timeout 60 "$venv/bin/confmig" "$@") >"$log" 2>&1 || status=$?
    if [ "$status" -gt 1 ] || grep -qE 'Traceback|ModuleNotFoundError|ImportError' "$log"; then
      echo "bare install: confmig $* exited $status" >&2
      tail -20 "$log" >&2
      failed=1
    fi
  }
  run parse "$demo"
  run lint "$demo"
  run rules
  run rule RW002
  run explain /blog/some/post --root "$demo"
  run convert --to httpd "$demo"
  run convert --to nginx "$demo"
  run convert --to flask "$demo"
  run explain --requests "$PWD/fixtures/requests.txt" --root "$demo"
  run verify --to httpd "$demo" --max-requests 20
  run bench --depth 1 --files 2 --mpm event --concurrency 1 --requests 100 --repeat 1
  rm -f "$log"
  [ "$failed" -eq 0 ] || { echo "bare install: some commands need more than the declared dependencies" >&2; return 1; }
  echo "bare install: every command ran from the declared dependencies alone"
}
bare_smoke

.venv/bin/python -m pytest --hypothesis-profile=ci "$@"
