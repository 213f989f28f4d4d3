#!/usr/bin/env bash
# A stop always stops: under a sustained ioctl flood from several processes,
# -d, SIGINT and SIGTERM end `ioctl --stream` (and summary mode and record)
# within a second or so, with the whole summary; a second SIGINT exits at
# once; a signal in the first milliseconds still gives a valid result.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DRV=$E2E_BIN/ioctl_driver
why=$(bpf_unavailable)
[ -x "$DRV" ] || why=${why:-"$DRV is not built"}
if [ -n "$why" ]; then
	for t in "-d under flood" "SIGINT under flood" "SIGTERM under flood" "second SIGINT" \
		"second SIGINT during the drain" "early SIGTERM" "early SIGINT"; do
		skip "stop: $t: $why"
	done
	exit 0
fi

flood_on() {
	FLOOD=()
	for _ in 1 2 3 4 5 6; do
		( while :; do "$DRV" --self 200000 > /dev/null; done ) &
		FLOOD+=($!)
	done
	sleep 0.5
}
flood_off() { kill "${FLOOD[@]}" 2>/dev/null; pkill -f "$DRV --self" 2>/dev/null; wait "${FLOOD[@]}" 2>/dev/null; }
ms() { date +%s%3N; }
trap 'flood_off; kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT

flood_on
# -d: ends by itself
t0=$(ms)
timeout 20 "$XP" ioctl --device /dev/null --stream -j -d 2 > "$WORK/d.out" 2> "$WORK/d.err"
rc=$? t=$(( $(ms) - t0 ))
if [ $rc -eq 0 ] && [ $t -lt 3500 ] && tail -1 "$WORK/d.out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["command"]=="ioctl" and "drops" in d'; then
	pass "stop: -d 2 under a flood ends in $t ms with the summary"
else
	fail "stop: -d 2 under a flood: status $rc after $t ms: $(head -c 200 "$WORK/d.err")"
fi
# signals: the summary is whole and ends the output
for sig in INT TERM; do
	for mode in --stream ""; do
		"$XP" ioctl --device /dev/null $mode -j > "$WORK/s.out" 2> "$WORK/s.err" &
		pid=$!
		sleep 1.5
		t0=$(ms)
		kill -$sig $pid
		wait $pid
		rc=$? t=$(( $(ms) - t0 ))
		if [ $rc -eq 0 ] && [ $t -lt 1500 ] && tail -1 "$WORK/s.out" | python3 -c 'import json,sys; json.load(sys.stdin)'; then
			pass "stop: SIG$sig ${mode:---summary} under a flood ends in $t ms with the summary"
		else
			fail "stop: SIG$sig ${mode:-summary} under a flood: status $rc after $t ms: $(head -c 200 "$WORK/s.err")"
		fi
	done
done
# record: the file is whole
"$XP" record -o "$WORK/f.xpt" --device /dev/null 2> "$WORK/r.err" &
pid=$!
sleep 1.5
t0=$(ms)
kill -INT $pid
wait $pid
rc=$? t=$(( $(ms) - t0 ))
if [ $rc -eq 0 ] && [ $t -lt 2500 ] && "$XP" report "$WORK/f.xpt" --info > /dev/null 2>&1; then
	pass "stop: record under a flood ends in $t ms with a whole file"
else
	fail "stop: record under a flood: status $rc after $t ms: $(head -c 200 "$WORK/r.err")"
fi
# a second SIGINT: at once, status 130
"$XP" ioctl --device /dev/null --stream > /dev/null 2> "$WORK/2.err" &
pid=$!
sleep 1
kill -INT $pid; kill -INT $pid
t0=$(ms)
wait $pid
rc=$? t=$(( $(ms) - t0 ))
if { [ $rc -eq 130 ] && grep -q "second signal" "$WORK/2.err"; } || [ $rc -eq 0 ]; then
	pass "stop: a second SIGINT ends at once (status $rc after $t ms)"
else
	fail "stop: second SIGINT: status $rc: $(head -c 200 "$WORK/2.err")"
fi
# A second SIGINT while the ring is being drained (after the first ended the
# run and the programs are detached) is still a second one: status 130. The
# drain is made long on purpose: the tracer is stopped while the flood fills
# its ring, gets the first SIGINT as it resumes, the second 5-20 ms later.
verdict=""
for delay in 0.02 0.005; do
	"$XP" ioctl --device /dev/null --stream -j > /dev/null 2> "$WORK/3.err" &
	pid=$!
	sleep 1
	kill -STOP $pid; sleep 0.5; kill -INT $pid; kill -CONT $pid
	sleep $delay
	kill -INT $pid 2>/dev/null
	wait $pid
	rc=$?
	if [ $rc -eq 130 ] && grep -q "second signal" "$WORK/3.err"; then
		verdict=pass; break
	elif [ $rc -eq 0 ] && grep -q "were not read" "$WORK/3.err"; then
		verdict=fail; break	# the drain took the second SIGINT for a first one
	fi
done
case $verdict in
pass) pass "stop: a second SIGINT during the drain exits at once (status 130)" ;;
fail) fail "stop: a second SIGINT during the drain only cut the drain short (status $rc): $(head -c 300 "$WORK/3.err")" ;;
*) skip "stop: second SIGINT during the drain: the drain ended before the second signal (status $rc)" ;;
esac
flood_off

# A signal in the first milliseconds of main: never killed, a valid (empty)
# summary. The signal goes to xputrace itself, once it is running (its
# /proc/PID/exe is xputrace) and catches both signals (SigCgt), then 0 to 50 ms
# later: a signal sent before that reaches the shell or env, or the dynamic
# loader, which no program can catch. env puts SIGINT's default action back: a
# script's background job starts with it ignored, so an INT that main() did
# not catch in time would kill the tracer (status 130, no summary).
catching() { # PID: waits (10 s at most) until PID is xputrace and catches SIGINT and SIGTERM
	local k v end=$((SECONDS + 10))
	while [ $SECONDS -lt $end ]; do
		if [ /proc/$1/exe -ef "$XP" ]; then
			while IFS=$': \t' read -r k v; do
				[ "$k" = SigCgt ] && [ $((0x$v & 0x4002)) -eq $((0x4002)) ] && return 0
			done < /proc/$1/status 2> /dev/null
		fi
		kill -0 $1 2> /dev/null || return 1
	done
	return 1
}
if ! env --default-signal=INT true 2> /dev/null; then
	skip "stop: early SIGTERM: env has no --default-signal (coreutils before 8.31)"
	skip "stop: early SIGINT: env has no --default-signal (coreutils before 8.31)"
else
	for sig in TERM INT; do
		bad=0
		for delay in 0 0.002 0.005 0.01 0.02 0.05; do
			env --default-signal=INT "$XP" ioctl --device /dev/null -j > "$WORK/e.out" 2> "$WORK/e.err" &
			pid=$!
			if ! catching $pid; then
				bad=1
				echo "delay $delay: xputrace did not catch SIGINT and SIGTERM within 10 s" >&2
			fi
			sleep $delay
			kill -$sig $pid 2> /dev/null
			( sleep 10; kill -KILL $pid 2> /dev/null ) &
			guard=$!
			wait $pid
			rc=$?
			kill $guard 2> /dev/null; wait $guard 2> /dev/null
			if [ $rc -ne 0 ] || ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/e.out" 2> /dev/null; then
				bad=1
				echo "SIG$sig, delay $delay: status $rc: $(head -c 200 "$WORK/e.err")" >&2
			fi
		done
		[ $bad -eq 0 ] && pass "stop: SIG$sig in the first 50 ms of main gives status 0 and a valid summary" ||
			fail "stop: an early SIG$sig lost the summary"
	done
fi
