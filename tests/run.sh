#!/usr/bin/env bash
# Runs every test layer and prints one line per test (PASS, FAIL, or SKIP with
# the reason), then "N passed, N failed, N skipped". Exits non-zero on a failure.
#   unit  build/tests/test_*          the analysis core, no kernel needed
#   e2e   tests/e2e/test_*.sh         xputrace on this machine's kernel
#   lab   lab/test.sh                 real Debian kernels under QEMU
# Set XP_LAYERS="unit e2e" to run a subset.
# The lab's guests run beside the unit and e2e layers (its results are counted
# after them), which take a third of the lab's time: the suite takes about as
# long as the lab alone. The lab's display scenarios, which a loaded host
# cannot hold at their frame rate, run at its end, after these layers.
set -u
cd "$(dirname "$0")/.."
layers=${XP_LAYERS:-unit e2e lab}
out=$(mktemp -d)
# (in this shell only: a subshell killed just after its fork can run it too)
trap '[ "$BASHPID" = "$$" ] || exit; rm -rf "$out"' EXIT
pass=0 fail=0 skip=0
# How long each test program took ("MILLISECONDS NAME" lines; the lab adds
# its scenarios'), for the list of the slowest at the end.
export XP_TIMES=$out/times
: >"$XP_TIMES"
timed() { # NAME CMD...: runs CMD, writes down its time, returns its status
	local name=$1 t0 rc=0
	t0=$(date +%s%3N)
	shift
	"$@" || rc=$?
	echo "$(($(date +%s%3N) - t0)) $name" >>"$XP_TIMES"
	return $rc
}
t_all=$(date +%s)

. tests/tally.sh

lab_pid=
case " $layers " in
*" lab "*)
	if [ -x lab/test.sh ] && [ "$layers" != lab ]; then
		# in a process group of its own (job control on for the start), so
		# that an interrupted suite ends the lab's guests too
		set -m
		lab/test.sh > "$out/lab" 2>&1 &
		lab_pid=$!
		set +m
		trap '[ "$BASHPID" = "$$" ] || exit; [ -z "$lab_pid" ] || kill -TERM -- -$lab_pid 2>/dev/null; rm -rf "$out"' EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
	fi ;;
esac
for layer in $layers; do
	echo "== $layer"
	case $layer in
	unit)
		for t in build/tests/test_*; do
			[ -x "$t" ] || continue
			tally < <(timed "$t" "$t" 2>&1; rc=$?; [ $rc -le 1 ] || echo "FAIL $(basename "$t"): exit status $rc")
		done ;;
	e2e)
		for t in tests/e2e/test_*.sh; do
			[ -f "$t" ] || continue
			tally < <(timed "$t" bash "$t" 2>&1 || true)
		done ;;
	lab)
		if [ -x lab/test.sh ]; then
			before=$fail
			if [ -n "$lab_pid" ]; then
				wait $lab_pid
				rc=$?
				lab_pid=
			else
				lab/test.sh > "$out/lab" 2>&1
				rc=$?
			fi
			tally < "$out/lab"
			# a lab that failed without naming a failed test still fails
			if [ $rc -ne 0 ] && [ "$fail" -eq "$before" ]; then
				tally <<<"FAIL lab/test.sh: exit status $rc"
			fi
		else
			tally <<<"SKIP lab: lab/test.sh is not there"
		fi ;;
	*) echo "unknown layer $layer" >&2; exit 2 ;;
	esac
done
echo "== the 10 slowest (seconds), of $(($(date +%s) - t_all)) s in all"
sort -rn "$XP_TIMES" | head -10 | awk '{ printf "  %7.1f  %s\n", $1 / 1000, $2 }'
# every test's time, slowest first, for whoever wants to make the suite quicker
mkdir -p build && sort -rn "$XP_TIMES" >build/test-times.txt 2>/dev/null
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
