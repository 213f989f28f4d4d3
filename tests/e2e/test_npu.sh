#!/usr/bin/env bash
# `xputrace npu` on this machine's kernel: bad input is refused with one line
# (exit 2), a damaged or foreign --baseline too; without kprobes or without
# the intel_vpu module it fails with one line (exit 1) and doctor says why.
# The probes themselves run in the lab (lab/scenarios/npu.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "npu bad input: $XP is not built"
	skip "npu without kprobes or the module: $XP is not built"
	exit 0
fi
one_line "npu rejects an unknown flag" 2 "unknown option" npu --bogus
one_line "npu rejects a stray argument" 2 "unexpected argument" npu extra
one_line "npu rejects a bad duration" 2 "duration" npu -d 0
one_line "npu rejects --latency of a non-ivpu function" 2 "latency wants an ivpu_\* function name" npu --latency vfs_read
one_line "npu rejects --latency with odd characters" 2 "latency wants an ivpu_\* function name" npu --latency 'ivpu_a;b'
one_line "npu rejects --latency without a value" 2 "needs a value" npu --latency
one_line "npu rejects a bad --threshold" 2 "threshold wants a percentage" npu --threshold -5
one_line "npu rejects a --threshold with a unit" 2 "threshold wants a percentage" npu --threshold 50%
one_line "npu: --baseline of a missing file" 2 "baseline .*No such file" npu --baseline "$WORK/none.json"
printf '{"command":"npu","ratios":{"mmu_pages_per_buffer":16,' > "$WORK/cut.json"
one_line "npu: --baseline of a damaged JSON file" 2 "baseline .*not a JSON document" npu --baseline "$WORK/cut.json"
printf '\x00\x01\x02binary' > "$WORK/bin.json"
one_line "npu: --baseline of a binary file" 2 "baseline .*not a text file" npu --baseline "$WORK/bin.json"
printf '{"command":"ioctl","duration_s":1}\n' > "$WORK/ioctl.json"
one_line "npu: --baseline of another command's JSON" 2 "not the JSON summary of 'xputrace npu'" npu --baseline "$WORK/ioctl.json"
one_line "npu: --baseline of a directory" 2 "baseline" npu --baseline "$WORK"
one_line "record does not take --baseline (live only)" 2 "baseline|unknown option" record -o "$WORK/r.xpt" npu --baseline "$WORK/cut.json"
if "$XP" --help | grep -q '^  npu '; then pass "npu is a verb in the top-level help"
else fail "npu is missing from the top-level help"; fi
if "$XP" npu --help | grep -q -- '--baseline FILE' && "$XP" npu --help | grep -q -- '--latency FUNC'; then
	pass "npu --help lists --latency and --baseline"
else
	fail "npu --help lacks --latency or --baseline"
fi

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "npu without kprobes or the module: $why"
	exit 0
fi
if grep -qs '^amdxdna ' /proc/modules ||
	{ grep -qs '^intel_vpu ' /proc/modules && [ -e /sys/bus/event_source/devices/kprobe ]; }; then
	skip "npu without kprobes or an NPU driver: this machine has an NPU driver it can trace"
	exit 0
fi
re="(kprobes are not available on this kernel|no NPU driver is loaded: neither intel_vpu \(Intel NPU\) nor amdxdna \(AMD NPU\))"
one_line "npu without kprobes or the module fails with one line" 1 "$re" npu -d 1
one_line "npu -j with filters and --latency fails the same way" 1 "$re" npu -j -p 1 -c x --latency ivpu_submit_ioctl -d 1
one_line "record npu fails with one line" 1 "$re" record -o "$WORK/n.xpt" npu -d 1
"$XP" doctor > "$WORK/doc.txt" 2>&1
if grep -Eq "^  npu +no +.*(kprobes unavailable|no NPU driver is loaded)" "$WORK/doc.txt"; then pass "doctor says why npu cannot run here"
else fail "doctor on npu: $(grep '^  npu ' "$WORK/doc.txt")"; fi
