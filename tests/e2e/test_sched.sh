#!/usr/bin/env bash
# `xputrace sched` on this machine's kernel: bad input is refused with one
# line and status 2; a kernel without gpu_scheduler events (no driver using
# the DRM GPU scheduler) gives one clear line and status 1. The real events
# are tested in the QEMU lab (lab/scenarios/sched_xputrace.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "sched: $XP is not built"
	exit 0
fi
one_line "sched rejects an unknown flag" 2 "unknown option" sched --bogus
one_line "sched rejects a bad duration" 2 "duration" sched -d 0
one_line "sched rejects a bad pid" 2 "pid" sched -p x
one_line "sched rejects a long comm" 2 "longer than" sched --comm 0123456789abcdefg
one_line "sched rejects a bad --max-jobs" 2 "max-jobs" sched --max-jobs 3
"$XP" sched --help > "$WORK/h.out" 2>&1 && grep -q -- "--ring" "$WORK/h.out" \
	&& pass "sched --help" || fail "sched --help: $(head -c 200 "$WORK/h.out")"

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "sched without gpu_scheduler events: $why"
	exit 0
fi
tfs=/sys/kernel/tracing
[ -d $tfs/events ] || tfs=/sys/kernel/debug/tracing
if ls $tfs/events/gpu_scheduler >/dev/null 2>&1; then
	skip "sched without gpu_scheduler events: this kernel has them (the lab tests them)"
else
	one_line "sched without gpu_scheduler events" 1 "this kernel has no gpu_scheduler events" sched -d 1
fi
