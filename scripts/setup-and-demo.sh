#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: install everything and build (scripts/install.sh),
# then generate demo media and run an example mix (scripts/demo.sh), printing where the result is.
#
#   sudo bash scripts/setup-and-demo.sh [demo.sh arguments, e.g. --all]
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$REPO/scripts/install.sh"
exec bash "$REPO/scripts/demo.sh" "$@"
