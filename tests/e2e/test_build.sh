#!/usr/bin/env bash
# The build is incremental: right after `make xputrace unit helpers` (which
# `make test` runs first), a second one has nothing to do. An output whose
# rule writes no dependency file is rebuilt on every run (Makefile: FORCE).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

out=
command -v make > /dev/null && [ -x xputrace ] && out=$(make -n xputrace unit helpers 2>&1 | grep -v '^make')
if ! command -v make > /dev/null; then
	skip "build: make is not installed"
elif [ ! -x xputrace ]; then
	skip "build: ./xputrace is not built"
elif [ -z "$out" ]; then
	pass "build: a second make of xputrace, the unit tests and the helpers has nothing to do"
else
	fail "build: a second make would run: $(echo "$out" | head -3 | cut -c1-200 | tr '\n' '|')"
fi
