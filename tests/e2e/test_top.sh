#!/usr/bin/env bash
# `xputrace top` end to end: the rows of processes of a cgroup made here, on a
# pseudo-terminal (script) and as plain text when piped; its bad input.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DRV=$E2E_BIN/ioctl_driver

if [ -x "$XP" ]; then
	one_line "top rejects an unknown option" 2 "unknown option" top --listen 127.0.0.1:1
	one_line "top rejects a bad interval" 2 "--interval wants" top -i 0
	one_line "top rejects an extra argument" 2 "unknown capability" top frob
else
	skip "top bad input: $XP is not built"
fi

cases="sort plain tty"
why=$(bpf_unavailable)
[ -x "$DRV" ] || why=${why:-"$DRV is not built"}
command -v script > /dev/null || why=${why:-"script (util-linux) is missing"}
cg2=$(cgroup2_root)
[ -n "$cg2" ] || why=${why:-"no cgroup v2 file system mounted"}
if [ -z "$why" ]; then
	B=$cg2/xpt-top-$$
	mkdir "$B" 2> /dev/null || why="cgroup v2 at $cg2 is not writable here"
fi
if [ -n "$why" ]; then
	for t in $cases; do skip "top $t: $why"; done
	exit 0
fi
trap "$MAIN_ONLY"' kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rmdir "$B" 2>/dev/null; rm -rf "$WORK"' EXIT
CG=/${B#"$cg2"/}

# a --sort that names no column: one line, status 2, once the columns are known
"$XP" top --device /dev/null -G "$B" --sort nosuch -d 1 > "$WORK/s.out" 2> "$WORK/s.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$WORK/s.err")" -eq 1 ] && grep -q -- "--sort wants a column" "$WORK/s.err"; then
	pass "top rejects a --sort that names no column"
else
	fail "top --sort nosuch: status $rc: $(head -c 200 "$WORK/s.err")"
fi

# piped: plain text, one block per refresh; the rates times the refresh
# times add up to what the driver did (207 calls in cgroup B)
if start_tracer plain top --device /dev/null -G "$B" -i 0.5 -d 3 --sort comm; then
	in_cgroup "$B" "$DRV" 1 > "$WORK/plain.pids"
	wait $TRACER
	rc=$?
	if msg=$(python3 tests/e2e/check_top.py "$WORK/plain.out" 207); then
		[ $rc -eq 0 ] && pass "top prints plain text when piped, its rates add up to the calls made" ||
			fail "top plain: status $rc"
	else
		fail "top plain: $msg: $(head -c 400 "$WORK/plain.out" | tr '\n' '|')"
	fi
else
	fail "top plain: did not start"
fi

# on a terminal: redrawn in place, the processes' rows with their cgroup
script -qfec "$XP top --device /dev/null -G $B -i 0.5 -d 4" /dev/null > "$WORK/tty.out" 2>&1 &
SCRIPT=$!
for _ in $(seq 1 200); do
	grep -q '^Tracing' "$WORK/tty.out" 2> /dev/null && break
	sleep 0.05
done
in_cgroup "$B" "$DRV" 1 > "$WORK/tty.pids"
wait $SCRIPT
if grep -aq $'\e\[H\e\[2J' "$WORK/tty.out" && grep -aq 'xputrace top ' "$WORK/tty.out" &&
	grep -aEq "^[0-9]+ +xpt-drv-a +[0-9.]+ .* $CG"$'\r?$' "$WORK/tty.out" &&
	grep -aEq "^[0-9]+ +xpt-drv-b " "$WORK/tty.out"; then
	pass "top on a terminal redraws in place with a row per process and its cgroup"
else
	fail "top tty: $(tr -d '\033' < "$WORK/tty.out" | head -c 600 | tr '\n' '|')"
fi
