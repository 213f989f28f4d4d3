#!/usr/bin/env bash
# The unit and end-to-end tests on the ASan/UBSan build (make check-asan):
# the unit tests of DIR/tests, then every tests/e2e/test_*.sh with XP set to
# DIR/xputrace. A sanitizer's report fails the run even where the test that
# caused it passed: each one goes to a log of its own, and a log left at the
# end is a FAIL line naming it. Every command that `xputrace --help` lists
# must have run under the sanitizers (XP is a shim that writes down each
# command it runs): one that no test ran is a FAIL line too. Prints the
# verdict lines and a count, as tests/run.sh does; exits non-zero on a failure.
set -u
cd "$(dirname "$0")/.."
dir=${1:-build/asan}
[ -x "$dir/xputrace" ] || { echo "FAIL asan: $dir/xputrace is not built (make check-asan)"; exit 1; }
xp=$(realpath "$dir/xputrace")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs=$tmp/logs
mkdir -p "$logs" "$logs/seen" "$tmp/bin"
# the shim, and what it writes, open to the tests that run xputrace unprivileged
chmod 755 "$tmp" "$tmp/bin"
: > "$tmp/verbs"
chmod 666 "$tmp/verbs"
# in C: a shell has handlers of its own for signals that the tests send once
# the process has handlers for them (tests/e2e/timed_run.py), and would die
cat > "$tmp/shim.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	FILE *f = fopen(VERBS, "a");

	if (f) {
		fprintf(f, "%s\n", argc > 1 ? argv[1] : "");
		fclose(f);
	}
	execv(XP, argv);
	perror(XP);
	return 127;
}
EOF
${CC:-cc} -O2 -DVERBS="\"$tmp/verbs\"" -DXP="\"$xp\"" -o "$tmp/bin/xputrace" "$tmp/shim.c" ||
	{ echo "FAIL asan: cannot build the shim that writes down the commands run"; exit 1; }
chmod 755 "$tmp/bin/xputrace"
# leaks too: a tracing run is short, everything it holds is freed at its end
export ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1"
export XP=$tmp/bin/xputrace XP_EXE=$xp
pass=0 fail=0 skip=0
. tests/tally.sh
reports() { # label: a FAIL line for each sanitizer log written since the last call
	for f in "$logs"/asan.* "$logs"/ubsan.*; do
		[ -f "$f" ] || continue
		tally <<<"FAIL $1: sanitizer report: $(grep -m1 -E 'ERROR|runtime error' "$f" | head -c 300)"
		mv "$f" "$logs/seen/"
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
# every command, by its full name
ran=0 missed=0
for verb in $("$xp" --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }'); do
	if grep -qx "$verb" "$tmp/verbs"; then
		ran=$((ran + 1))
	else
		missed=$((missed + 1))
		tally <<<"FAIL asan: xputrace $verb never ran under the sanitizers (no test runs it)"
	fi
done
[ $missed -gt 0 ] || tally <<<"PASS asan: all $ran commands of xputrace --help ran under the sanitizers"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
