#!/usr/bin/env bash
# `xputrace fence` on this machine's kernel: bad input is refused with one
# line (exit 2); on a kernel without the dma_fence events it fails with one
# line that points at doctor (exit 1); where the events are, a short run
# attaches to all of them and reports. Real fences are made in the lab
# (lab/scenarios/fence.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "fence bad input: $XP is not built"
	exit 0
fi
one_line "fence rejects an unknown flag" 2 "unknown option" fence --bogus
one_line "fence rejects a bad duration" 2 "duration" fence -d 0
one_line "fence rejects a stray argument" 2 "unexpected argument" fence extra
one_line "fence rejects a bad pid" 2 "pid" fence -p abc
one_line "fence rejects a bad interval" 2 "interval" fence -i 0
one_line "report of a missing file names it" 1 "nonexistent" report /nonexistent.xpt fence

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "fence on this kernel: $why"
	exit 0
fi
tfs=/sys/kernel/tracing
[ -d $tfs/events ] || mount -t tracefs nodev $tfs 2>/dev/null
[ -d $tfs/events ] || tfs=/sys/kernel/debug/tracing
if [ ! -d "$tfs/events/dma_fence" ]; then
	one_line "fence without dma_fence events fails with one line" 1 "doctor" fence -d 1
	one_line "fence --json without dma_fence events fails with one line" 1 "doctor" fence -j -d 1
	exit 0
fi
out=$("$XP" fence -d 1 --json 2>/dev/null); rc=$?
n=$(ls -d "$tfs"/events/dma_fence/dma_fence_* 2>/dev/null | grep -c -E 'dma_fence_(init|emit|enable_signal|signaled|wait_start|wait_end|destroy)$')
if [ $rc -eq 0 ] && grep -q "\"events_present\":$n," <<<"$out" && grep -q '"timelines":\[' <<<"$out"; then
	pass "fence -d 1 --json attaches to the $n dma_fence events here and reports"
else
	fail "fence -d 1 --json: exit $rc, output: ${out:0:300}"
fi
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if "$XP" fence -p 1 -c x ${cg:+-G "$cg"} -d 1 >/dev/null 2>&1; then
	pass "fence takes -p/-c${cg:+/-G}"
else
	fail "fence -p 1 -c x ${cg:+-G $cg} -d 1 failed"
fi
