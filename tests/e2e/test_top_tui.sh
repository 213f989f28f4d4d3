#!/usr/bin/env bash
# `xputrace top` on a terminal (curses, TERM=xterm), driven through a
# pseudo-terminal by top_tui.py: q gives the terminal back and exits 0, the
# sort keys reorder the rows as the numbers say, the table fits 60 columns
# and follows a resize to 100, SIGTERM (and a second one's exit) gives the
# terminal back.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

cases="q-restores q-exits released sort reverse sort-pid help cgroups width-60 resize-100 sigterm second-sigterm gpu-strip"
why=$(bpf_unavailable)
[ -x "$XP" ] || why=${why:-"$XP is not built"}
command -v python3 > /dev/null || why=${why:-"python3 is missing"}
infocmp xterm > /dev/null 2>&1 || why=${why:-"the terminal database has no xterm"}
if [ -n "$why" ]; then
	for t in $cases; do skip "top tui $t: $why"; done
	exit 0
fi
export XPT_CULIB=$(realpath -m build/libxputrace-cuda.so) XPT_CUDA_APP=$E2E_BIN/cuda_app \
	XPT_CUPTI=$(realpath -m "$E2E_BIN/libcupti-stub.so")
out=$(timeout 180 python3 tests/e2e/top_tui.py "$XP" 2>&1)
rc=$?
printf '%s\n' "$out" | grep -E '^(PASS|FAIL|SKIP) '
if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q 'a second SIGTERM'; then
	fail "top tui: the driver ended early (status $rc): $(printf '%s' "$out" | grep -vE '^(PASS|FAIL) ' | tail -c 400)"
fi
