#!/usr/bin/env bash
# Records lost are counted in the kernel and shown: a tracer stopped while a
# flood of ioctls fills its ring buffer reads what the ring held when it
# resumes, and its summary's drops.ringbuf counts the rest (user space reads
# the drop counters through mmap, without a bpf() syscall). The records
# read plus those counted lost are the flood's calls.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DRV=$E2E_BIN/ioctl_driver
why=$(bpf_unavailable)
[ -x "$DRV" ] || why=${why:-"$DRV is not built"}
if [ -n "$why" ]; then
	skip "drops: a full ring buffer's losses are counted: $why"
	exit 0
fi
N=200000	# about 4 times what the 4 MiB ring holds
if ! start_tracer d ioctl --device /dev/null --stream -j; then
	fail "drops: the tracer did not start"
	exit 0
fi
kill -STOP $TRACER
P=$("$DRV" --self $N | sed -n 's/.*"self": \([0-9]*\).*/\1/p')
kill -CONT $TRACER
sleep 1
stop_tracer INT
rc=$?
seen=$(grep -c "\"pid\":$P," "$WORK/d.out")
read -r rb total < <(tail -n 1 "$WORK/d.out" | python3 -c '
import json, sys
d = json.load(sys.stdin)["drops"]
print(d["ringbuf"], d["total"])' 2> /dev/null)
if [ $rc -eq 0 ] && [ "${rb:-0}" -gt 0 ] && [ "${total:-0}" -ge "${rb:-0}" ] && [ "$seen" -le $N ] &&
	[ $((seen + ${rb:-0})) -ge $N ]; then
	pass "drops: a stopped reader's full ring buffer: $seen of $N ioctls read, ${rb} counted lost (ringbuf), none unaccounted for"
else
	fail "drops: $N ioctls, $seen read, ringbuf drops '${rb:-}', total '${total:-}', status $rc: $(head -c 300 "$WORK/d.err")"
fi
