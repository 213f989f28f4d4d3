#!/usr/bin/env bash
# The unit and end-to-end tests on the ASan/UBSan build (make check-asan):
# the unit tests of DIR/tests, then every tests/e2e/test_*.sh with XP set to
# DIR/xputrace. A sanitizer's report fails the run even where the test that
# caused it passed: each one goes to a log of its own, and a log left at the
# end is a FAIL line naming it. Prints the verdict lines and a count, as
# tests/run.sh does; exits non-zero on a failure.
set -u
cd "$(dirname "$0")/.."
dir=${1:-build/asan}
[ -x "$dir/xputrace" ] || { echo "FAIL asan: $dir/xputrace is not built (make check-asan)"; exit 1; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# leaks too: a tracing run is short, everything it holds is freed at its end
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
export XP=$dir/xputrace
pass=0 fail=0 skip=0
. tests/tally.sh
reports() { # label: a FAIL line for each sanitizer log written since the last call
	for f in "$logs"/*; do
		[ -f "$f" ] || continue
		tally <<<"FAIL $1: sanitizer report: $(grep -m1 -E 'ERROR|runtime error' "$f" | head -c 300)"
		mv "$f" "$f.seen"
	done
}
echo "== unit (sanitized)"
for t in "$dir"/tests/test_*; do
	[ -x "$t" ] || continue
	tally < <("$t" 2>&1; rc=$?; [ $rc -le 1 ] || echo "FAIL $(basename "$t"): exit status $rc")
	reports "$(basename "$t")"
done
echo "== e2e (sanitized xputrace)"
for t in tests/e2e/test_*.sh; do
	tally < <(bash "$t" 2>&1 || true)
	reports "$(basename "$t")"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
