#!/usr/bin/env bash
# Install what the tests need (apache2, nginx, wrk, strace; Python deps in .venv) and run the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
have() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ]; }
# mod_wsgi (which Debian enables on install) and php-fpm: the suite must pass with the
# third-party modules real servers carry, not only with Debian's default module set.
if ! have apache2 || ! have nginx || ! have wrk || ! have strace \
   || [ ! -e /usr/lib/apache2/modules/mod_wsgi.so ] || ! compgen -G '/usr/sbin/php-fpm*' >/dev/null \
   || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y apache2 nginx wrk strace python3-venv \
    libapache2-mod-wsgi-py3 php-fpm
fi
# Debian's packages start the system services; the tests use their own private servers
# on free loopback ports and never touch these.
python3 -m venv .venv
.venv/bin/pip install --quiet --upgrade pip
.venv/bin/pip install --quiet -e '.[test]'
.venv/bin/python -m pytest "$@"
