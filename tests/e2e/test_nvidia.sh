#!/usr/bin/env bash
# `xputrace nvidia` on this machine's kernel: bad input is refused with one
# line (exit 2); without kprobes, or without the nvidia module, it fails with
# one line (exit 1) that points at `ioctl`, never a crash or a hang. The
# probes themselves are exercised in the lab (lab/scenarios/nvidia.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "nvidia bad input: $XP is not built"
	skip "nvidia without kprobes or the module: $XP is not built"
	exit 0
fi
one_line "nvidia rejects an unknown flag" 2 "unknown option" nvidia --bogus
one_line "nvidia rejects a bad duration" 2 "duration" nvidia -d 0
one_line "nvidia rejects a stray argument" 2 "unexpected argument" nvidia extra
one_line "nvidia rejects a bad --keep" 2 "keep wants seconds" nvidia --keep 0
one_line "nvidia rejects a --keep with a unit" 2 "keep wants seconds" nvidia --keep 5s
one_line "nvidia rejects an empty --on-xid" 2 "on-xid wants a file name" nvidia --on-xid ""
one_line "nvidia rejects --sample 0" 2 "sample wants a whole number" nvidia --sample 0
one_line "nvidia rejects a --sample that is no number" 2 "sample wants a whole number" nvidia --sample 10x
one_line "nvidia rejects a --sample past the bound" 2 "sample wants a whole number" nvidia --sample 1000001
one_line "nvidia: --on-xid keeps every call, not with --sample" 2 "does not go with --sample" nvidia --sample 10 --on-xid x
one_line "record does not take --sample (live only)" 2 "sample|unknown option|unrecognized" record -o "$WORK/r.xpt" nvidia --sample 10
one_line "record does not take --on-xid (live only)" 2 "on-xid|unknown option|unrecognized" record -o "$WORK/r.xpt" nvidia --on-xid x
if "$XP" --help | grep -q '^  nvidia '; then pass "nvidia is a verb in the top-level help"
else fail "nvidia is missing from the top-level help"; fi

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "nvidia without kprobes or the module: $why"
	exit 0
fi
if grep -qs '^nvidia ' /proc/modules; then
	skip "nvidia without kprobes or the module: the nvidia module is loaded here"
	exit 0
fi
# either reason names 'ioctl', which still traces /dev/nvidia*
one_line "nvidia without kprobes or the module fails with one line" 1 \
	"(kprobes are not available|nvidia module is not loaded).*'xputrace ioctl'" nvidia -d 1
one_line "nvidia -j with filters fails the same way" 1 "'xputrace ioctl'" nvidia -j -p 1 -c x -d 1
one_line "record nvidia fails with one line" 1 "'xputrace ioctl'" record -o "$WORK/n.xpt" nvidia -d 1
