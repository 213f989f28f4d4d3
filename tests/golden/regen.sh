#!/usr/bin/env bash
# Rewrites tests/golden/expected from cases.txt with the xputrace built here,
# after a change meant to alter what it prints; review the diff before
# committing it.
#   regen.sh [--fixtures] [XP]
# --fixtures first rewrites tests/golden/data/gen with build/tests/golden/mkfixtures
# (after a change to mkfixtures.c meant to alter the trace files).
# XP defaults to ./xputrace.
set -eu
cd "$(dirname "$0")/../.."
if [ "${1:-}" = --fixtures ]; then
	shift
	gen=build/tests/golden/mkfixtures
	[ -x "$gen" ] || { echo "regen.sh: $gen is not built (make $gen)" >&2; exit 2; }
	rm -f tests/golden/data/gen/*.xpt
	"$gen" tests/golden/data/gen
fi
XP=${1:-./xputrace}
[ -x "$XP" ] || { echo "regen.sh: $XP is not built (make)" >&2; exit 2; }
bash tests/golden/golden.sh regen "$XP"
git status --short -- tests/golden 2>/dev/null || true
