#!/usr/bin/env bash
# The flight recorder's memory under a flood: `record --last` with the default
# ring (64 MiB) while ioctl_loop issues ioctls on /dev/null as fast as it can
# for SECONDS; samples the recorder's RSS every second and prints the peak
# RSS, the ring's peak and what it let go. Root, BPF.
#   bench/flight.sh [SECONDS] [RING_MIB]
set -eu
cd "$(dirname "$0")/.."
SECS=${1:-60}
RING=${2:-64}
XP=./xputrace
LOOP=build/bench/ioctl_loop
W=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$W"' EXIT
"$XP" record --last 30 --ring-size "$RING" --trigger sigusr1 -o "$W/out" --device /dev/null -c ioctl_loop \
	2> "$W/err" &
T=$!
for _ in $(seq 1 200); do grep -qs '^Tracing' "$W/err" && break; sleep 0.05; done
rss0=$(awk '/^VmRSS/ { print $2 }' /proc/$T/status)
# rounds of 200,000 calls until SECONDS are over
"$LOOP" 200000 1000000 > /dev/null &
L=$!
peak=0
t0=$(date +%s.%N)
for i in $(seq 1 "$SECS"); do
	sleep 1
	r=$(awk '/^VmRSS/ { print $2 }' /proc/$T/status)
	[ "$r" -gt "$peak" ] && peak=$r
	[ $((i % 10)) -eq 0 ] && echo "t=${i}s RSS ${r} kB" >&2
done
t1=$(date +%s.%N)
kill -USR1 $T
sleep 1.5
kill $L
kill -INT $T
wait $T || true
hwm=$(grep -o 'peak [0-9.]* MiB of [0-9]* MiB.*' "$W/err")
recs=$(sed -n 's/.*wrote .*: \([0-9]*\) records.*/\1/p' "$W/err")
aged=$(sed -n 's/.*, \([0-9]*\) blocks (\([0-9]*\) records) older than.*/\2/p' "$W/err")
cut=$(sed -n 's/.* \([0-9]*\) blocks (\([0-9]*\) records) dropped by --ring-size.*/\2/p' "$W/err")
echo "flood ${SECS} s: RSS at start ${rss0} kB, peak ${peak} kB; ring ${hwm}"
echo "records let go by age: ${aged:-0}, by the bound: ${cut:-0}; the SIGUSR1 file: ${recs:-?} records"
echo "rate: $(python3 -c "print(round((${aged:-0} + ${cut:-0} + ${recs:-0}) / ($t1 - $t0)))") records/s kept or let go (approx.)"
cat "$W/err" | grep -v '^Tracing' >&2
