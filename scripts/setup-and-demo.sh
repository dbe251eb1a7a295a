#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: install everything and build (scripts/install.sh),
# then generate demo media and run an example mix (scripts/demo.sh), printing where the result is.
#
#   bash scripts/setup-and-demo.sh [demo.sh arguments, e.g. --all]
#
# Run it as root (a fresh container, a CI runner) or as a user with sudo: install.sh uses sudo for
# apt-get only when it is not root, and everything else runs as the user who started it.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$REPO/scripts/install.sh"
exec bash "$REPO/scripts/demo.sh" "$@"
