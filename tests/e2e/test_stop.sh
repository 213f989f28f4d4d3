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
TIMED="python3 tests/e2e/timed_run.py"

flood_on
# -d: ends by itself, 2 s after the Tracing line (start-up is not counted:
# a sanitized build starts slower) and within 0.5 s of that (margin 0.5 s)
res=$($TIMED "$WORK/d.out" "$WORK/d.err" -- timeout 20 "$XP" ioctl --device /dev/null --stream -j -d 2)
read -r rc tt ts te seen th <<< "$res"
over=$(python3 -c "print(round($te - $tt - 2, 3) if $tt >= 0 else 99)")
if [ $rc -eq 0 ] && python3 -c "import sys; sys.exit(0 if $over <= 1.0 else 1)" &&
	tail -1 "$WORK/d.out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["command"]=="ioctl" and "drops" in d'; then
	pass "stop: -d 2 under a flood ends $over s after its 2 s of tracing, with the summary"
else
	fail "stop: -d 2 under a flood: status $rc, $over s after its 2 s of tracing: $(head -c 200 "$WORK/d.err")"
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
# (The signal waits for the handlers, so a sanitized build's longer start
# before main() is covered too.)
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

# A signal during start-up stops it there: no "Tracing" line (tracing never
# starts), status 0, the (empty) summary, and the exit within a second of the
# signal (bound 1 s; margin 0.5 s for a loaded machine). The signal is sent
# at fractions of this machine's start-up time, measured first; a sample
# where the Tracing line was already out when the signal went is not one.
startup() { # the shortest of 3 start-ups (from main()'s signal handlers to Tracing), in seconds
	local best=99 t
	for _ in 1 2 3; do
		t=$($TIMED "$WORK/su.out" "$WORK/su.err" -- "$XP" ioctl --device /dev/null -d 0.01 -j |
			awk '{ print ($2 >= 0 && $6 >= 0) ? $2 - $6 : -1 }')
		best=$(python3 -c "print(min($best, $t) if $t > 0 else $best)")
	done
	echo "$best"
}
startup_signal() { # label flood: checks SIGINT and SIGTERM at 20 % and 60 % of the start-up
	local label=$1 su bad=0 n=0 worst=0 sig frac res rc tt ts te seen th
	su=$(startup)
	for sig in TERM INT; do
		for frac in 0.2 0.6; do
			res=$($TIMED --signal $sig --after-handler --at "$(python3 -c "print($su * $frac)")" "$WORK/ss.out" "$WORK/ss.err" -- \
				"$XP" ioctl --device /dev/null --stream -j)
			read -r rc tt ts te seen th <<< "$res"
			[ "$seen" = 1 ] && continue	# tracing had begun: not a start-up sample
			# a Tracing line within 20 ms of the signal may have been on its
			# way when it came (the watcher looks every 5 ms): not a sample
			python3 -c "import sys; sys.exit(0 if 0 <= $tt - $ts < 0.02 else 1)" && continue
			n=$((n + 1))
			took=$(python3 -c "print(round($te - $ts, 3))")
			worst=$(python3 -c "print(max($worst, $took))")
			ok=1
			[ "$rc" -eq 0 ] || ok=0
			grep -q '^Tracing' "$WORK/ss.err" && ok=0
			python3 -c "import sys; sys.exit(0 if $took <= 1.5 else 1)" || ok=0
			tail -1 "$WORK/ss.out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert "drops" in d' 2> /dev/null || ok=0
			if [ $ok -eq 0 ]; then
				bad=1
				echo "SIG$sig at $frac of ${su}s start-up: status $rc, exit $took s after it, stderr: $(head -c 200 "$WORK/ss.err")" >&2
			fi
		done
	done
	if [ $n -eq 0 ]; then
		skip "stop: a signal during start-up ($label): start-up (${su} s) too short to land a signal in it"
	elif [ $bad -eq 0 ]; then
		pass "stop: a signal during start-up ($label) stops it: status 0, empty summary, no tracing, exit at most $worst s after it ($n samples, start-up ${su} s)"
	else
		fail "stop: a signal during start-up ($label) did not stop it there (see above)"
	fi
}
startup_signal idle
# record too: a signal during its start-up leaves a whole (empty) file, or,
# when it came before anything was attached, says so and leaves none
su=$(startup) n=0 bad=0
for frac in 0.3 0.7; do
	rm -f "$WORK/su.xpt"
	res=$($TIMED --signal TERM --after-handler --at "$(python3 -c "print($su * $frac)")" "$WORK/rs.out" "$WORK/rs.err" -- \
		"$XP" record -o "$WORK/su.xpt" --device /dev/null)
	read -r rc tt ts te seen th <<< "$res"
	[ "$seen" = 1 ] && continue
	python3 -c "import sys; sys.exit(0 if 0 <= $tt - $ts < 0.02 else 1)" && continue
	n=$((n + 1))
	took=$(python3 -c "print(round($te - $ts, 3))")
	if [ "$rc" -ne 0 ] || grep -q '^Tracing' "$WORK/rs.err" || ! python3 -c "import sys; sys.exit(0 if $took <= 1.5 else 1)" ||
		{ [ -e "$WORK/su.xpt" ] && ! "$XP" report "$WORK/su.xpt" --info > /dev/null 2>&1; } ||
		{ [ ! -e "$WORK/su.xpt" ] && ! grep -q "not written" "$WORK/rs.err"; } || ls -A "$WORK" | grep -q '^\.su\.xpt'; then
		bad=1
		echo "record: SIGTERM at $frac of ${su}s start-up: status $rc after $took s: $(head -c 200 "$WORK/rs.err")" >&2
	fi
done
if [ $n -eq 0 ]; then
	skip "stop: a signal during record's start-up: start-up (${su} s) too short to land a signal in it"
elif [ $bad -eq 0 ]; then
	pass "stop: a signal during record's start-up stops it ($n samples): status 0, no tracing, no temporary file left"
else
	fail "stop: a signal during record's start-up did not stop it there (see above)"
fi
flood_on
startup_signal "under a flood"
# -d counts from when tracing began (the Tracing line) and the run ends
# within 0.5 s of its end, for every verb, under the flood. Bound 0.5 s;
# margin 0.5 s for a loaded machine (the overrun measured is printed).
for args in "ioctl --device /dev/null -j" "ioctl --device /dev/null --stream -j" \
	"record -o $WORK/d.xpt --device /dev/null" "latency --preset syscall:ioctl --stream -j"; do
	name=$(echo "$args" | sed "s| -o $WORK/d.xpt||; s| --device /dev/null||; s| --preset syscall:ioctl||; s| -j||")
	res=$($TIMED "$WORK/dd.out" "$WORK/dd.err" -- "$XP" $args -d 1)
	read -r rc tt ts te seen th <<< "$res"
	over=$(python3 -c "print(round($te - $tt - 1, 3) if $tt >= 0 else 99)")
	if [ "$rc" -eq 0 ] && python3 -c "import sys; sys.exit(0 if -0.05 <= $over <= 1.0 else 1)"; then
		pass "stop: -d 1 under a flood ($name): ends $over s after its second of tracing (start-up $tt s)"
	else
		fail "stop: -d 1 under a flood ($args): status $rc, overrun $over s (bound 0.5 s + 0.5 s), start-up $tt s: $(head -c 200 "$WORK/dd.err")"
	fi
done
flood_off
