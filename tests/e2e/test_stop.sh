#!/usr/bin/env bash
# A stop always stops: under a sustained ioctl flood from several processes,
# -d, SIGINT and SIGTERM end `ioctl --stream` (and summary mode and record)
# within a second or so, with the whole summary; a second SIGINT exits at
# once; a signal in the first milliseconds still gives a valid result.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
# an absolute path: flood_off's pkill then matches this suite's floods only,
# not those of another checkout's tests running on the same machine
case $E2E_BIN in /*) DRV=$E2E_BIN/ioctl_driver ;; *) DRV=$PWD/$E2E_BIN/ioctl_driver ;; esac
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
trap "$MAIN_ONLY"' flood_off; kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT
TIMED="python3 tests/e2e/timed_run.py"
LIB=$E2E_BIN/libapiwork.so
# arithmetic in awk: a python start costs 0.1-0.5 s on a loaded machine
calc() { awk "BEGIN { printf \"%.3f\n\", ($1) }"; }
within() { awk "BEGIN { exit !($1 <= $2) }"; }
stats() { # "median N max" of the numbers given
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %d %.3f\n", m, NR, v[NR] }'
}

flood_on
# -d: ends by itself, 2 s after the Tracing line (start-up is not counted:
# a sanitized build starts slower) and within 0.5 s of that. Three runs: the
# median overrun within 0.5 s plus a margin of 0.5 s for a loaded machine,
# every one within 3 s (a CPU hog on every core makes single runs slow).
overs=() bad=""
for _ in 1 2 3; do
	res=$($TIMED "$WORK/d.out" "$WORK/d.err" -- timeout 20 "$XP" ioctl --device /dev/null --stream -j -d 2)
	read -r rc tt ts te seen th <<< "$res"
	over=$(calc "$tt >= 0 ? $te - $tt - 2 : 99")
	overs+=("$over")
	if [ $rc -ne 0 ] || ! tail -1 "$WORK/d.out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["command"]=="ioctl" and "drops" in d'; then
		bad="status $rc: $(head -c 200 "$WORK/d.err")"
	fi
done
read -r med n worst <<< "$(stats "${overs[@]}")"
if [ -z "$bad" ] && within "$med" 1.0 && within "$worst" 3.0; then
	pass "stop: -d 2 under a flood ends after its 2 s of tracing with the summary: overrun median $med s, max $worst s ($n runs: ${overs[*]})"
else
	fail "stop: -d 2 under a flood: overrun median $med s (bound 1.0), max $worst s (cap 3.0) (${overs[*]}) $bad"
fi
# signals, 1.5 s after the Tracing line (a fixed time after start-up, which a
# hog makes long): the run ends with its whole summary. Three runs each: the
# median within 1.5 s (the bound as before), every one within 4.5 s (3x).
for sig in INT TERM; do
	for mode in --stream ""; do
		ts_=() bad=""
		for _ in 1 2 3; do
			res=$($TIMED --signal $sig --after-tracing --at 1.5 "$WORK/s.out" "$WORK/s.err" -- \
				"$XP" ioctl --device /dev/null $mode -j)
			read -r rc tt ts te seen th <<< "$res"
			took=$(calc "$ts >= 0 ? $te - $ts : 99")
			ts_+=("$took")
			if [ $rc -ne 0 ] || ! tail -1 "$WORK/s.out" | python3 -c 'import json,sys; json.load(sys.stdin)'; then
				bad="status $rc: $(head -c 200 "$WORK/s.err")"
			fi
		done
		read -r med n worst <<< "$(stats "${ts_[@]}")"
		if [ -z "$bad" ] && within "$med" 1.5 && within "$worst" 4.5; then
			pass "stop: SIG$sig ${mode:---summary} under a flood ends with the summary: median $med s, max $worst s after the signal ($n runs: ${ts_[*]})"
		else
			fail "stop: SIG$sig ${mode:---summary} under a flood: median $med s (bound 1.5), max $worst s (cap 4.5) (${ts_[*]}) $bad"
		fi
	done
done
# record: the file is whole. Median within 2.5 s (as before), each within 7.5 s.
ts_=() bad=""
for _ in 1 2 3; do
	res=$($TIMED --signal INT --after-tracing --at 1.5 "$WORK/r.out" "$WORK/r.err" -- \
		"$XP" record -o "$WORK/f.xpt" --device /dev/null)
	read -r rc tt ts te seen th <<< "$res"
	took=$(calc "$ts >= 0 ? $te - $ts : 99")
	ts_+=("$took")
	if [ $rc -ne 0 ] || ! "$XP" report "$WORK/f.xpt" --info > /dev/null 2>&1; then
		bad="status $rc: $(head -c 200 "$WORK/r.err")"
	fi
done
read -r med n worst <<< "$(stats "${ts_[@]}")"
if [ -z "$bad" ] && within "$med" 2.5 && within "$worst" 7.5; then
	pass "stop: record under a flood ends with a whole file: median $med s, max $worst s after SIGINT ($n runs: ${ts_[*]})"
else
	fail "stop: record under a flood: median $med s (bound 2.5), max $worst s (cap 7.5) (${ts_[*]}) $bad"
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
		# XP_EXE: what $XP runs when it is a wrapper (tests/asan.sh's)
		if [ /proc/$1/exe -ef "${XP_EXE:-$XP}" ]; then
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

# A signal during start-up stops it there, for every verb: no Tracing line
# (tracing never starts), status 0, the (empty) summary, and the exit within
# a second of the signal. The signal goes at fractions of the verb's start-up
# time, measured first; a sample where the Tracing line was out (or on its
# way: within 20 ms, the watcher looks every 5 ms) when it went is not one.
# At least 5 samples a verb: their median within 1 s, the bound; every one
# within 3 s, 3x the bound, as a CPU hog on every core can stretch a single
# run's detach (the kernel waits for grace periods) well past it.
startup() { # CMD...: the shortest of 3 start-ups (from main()'s signal handlers to Tracing), in seconds
	local best=99 t
	for _ in 1 2 3; do
		t=$($TIMED "$WORK/su.out" "$WORK/su.err" -- "$@" -d 0.01 | awk '{ print ($2 >= 0 && $6 >= 0) ? $2 - $6 : -1 }')
		best=$(calc "${t:--1} > 0 && ${t:--1} < $best ? ${t:--1} : $best")
	done
	rm -f "$WORK/su.xpt"
	echo "$best"
}
json_ok() { tail -1 "$WORK/ss.out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert "drops" in d' 2> /dev/null; }
# record: a whole (empty) file, or, when the signal came before anything was
# attached, a line that says so and no file; never a temporary file left
record_ok() {
	{ [ -e "$WORK/su.xpt" ] && "$XP" report "$WORK/su.xpt" --info > /dev/null 2>&1; } ||
		{ [ ! -e "$WORK/su.xpt" ] && grep -q "not written" "$WORK/ss.err"; } || return 1
	! ls -A "$WORK" | grep -q '^\.su\.xpt'
}
# nothing to say (it served nothing) but, maybe, its note of 32-bit programs another job ran meanwhile
serve_ok() { ! grep -v '^serve: [0-9]* 32-bit programs\{0,1\} started while tracing' "$WORK/ss.err" | grep -q .; }
startup_signal() { # LABEL CHECK CMD...: SIGTERM and SIGINT in turn at fractions of CMD's start-up
	local label=$1 check=$2 su tries=0 bad=0 took sig frac res rc tt ts te seen th med n worst
	local times=()
	shift 2
	su=$(startup "$@")
	# where a short start-up (10 ms on a fast machine) lets later ones land after it: early ones
	for frac in 0.1 0.3 0.5 0.7 0.2 0.4 0.6 0.8 0.05 0.15 0.02 0.08 0.12 0.25 0.03 0.06 0.1 0.04 0.2 0.01; do
		[ ${#times[@]} -ge 5 ] && break
		sig=TERM
		[ $((tries % 2)) -eq 1 ] && sig=INT
		tries=$((tries + 1))
		rm -f "$WORK/su.xpt"
		res=$($TIMED --signal $sig --after-handler --at "$(calc "$su * $frac")" "$WORK/ss.out" "$WORK/ss.err" -- "$@")
		read -r rc tt ts te seen th <<< "$res"
		[ "$seen" = 1 ] && continue	# tracing had begun: not a start-up sample
		awk "BEGIN { exit !(0 <= $tt - $ts && $tt - $ts < 0.02) }" && continue
		took=$(calc "$te - $ts")
		times+=("$took")
		if [ "$rc" -ne 0 ] || grep -q '^Tracing' "$WORK/ss.err" || ! $check; then
			bad=1
			echo "$label: SIG$sig at $frac of ${su}s start-up: status $rc, exit $took s after it, stderr: $(head -c 200 "$WORK/ss.err")" >&2
		fi
	done
	if [ ${#times[@]} -lt 5 ]; then
		skip "stop: a signal during start-up ($label): ${#times[@]} of $tries signals landed in its start-up (${su} s), 5 wanted"
		return
	fi
	read -r med n worst <<< "$(stats "${times[@]}")"
	if [ $bad -eq 0 ] && within "$med" 1.0 && within "$worst" 3.0; then
		pass "stop: a signal during start-up ($label) stops it: status 0, empty summary, no tracing; exit median $med s, max $worst s after it ($n samples: ${times[*]}; start-up ${su} s)"
	else
		fail "stop: a signal during start-up ($label): exit median $med s (bound 1.0), max $worst s (cap 3.0) (${times[*]}), or a wrong result (see above)"
	fi
}
startup_signal "ioctl, idle" json_ok "$XP" ioctl --device /dev/null --stream -j
startup_signal "latency --preset, idle" json_ok "$XP" latency --preset syscall:getppid -j
startup_signal "fence, idle" json_ok "$XP" fence -j
if [ -e "$LIB" ]; then
	startup_signal "api --lib, idle" json_ok "$XP" api --lib "$LIB:zeMemFree,clFinish" --device /dev/null -j
else
	skip "stop: a signal during start-up (api --lib, idle): $LIB is not built"
fi
startup_signal "record ioctl fence, idle" record_ok "$XP" record -o "$WORK/su.xpt" --device /dev/null ioctl fence
startup_signal "serve, idle" serve_ok "$XP" serve --listen 127.0.0.1:0 --device /dev/null
flood_on
# under the flood: the verbs whose start-up it lengthens most (the ioctl hook)
startup_signal "ioctl, under a flood" json_ok "$XP" ioctl --device /dev/null --stream -j
startup_signal "record ioctl fence, under a flood" record_ok "$XP" record -o "$WORK/su.xpt" --device /dev/null ioctl fence
# -d counts from when tracing began (the Tracing line) and the run ends
# within 0.5 s of its end, for every verb, under the flood. Three runs each:
# the median overrun within 0.5 s plus a margin of 0.5 s for a loaded
# machine, every one within 3 s (3x) and none early (5 ms of timer slack).
for args in "ioctl --device /dev/null -j" "ioctl --device /dev/null --stream -j" \
	"record -o $WORK/d.xpt --device /dev/null" "latency --preset syscall:ioctl --stream -j"; do
	name=$(echo "$args" | sed "s| -o $WORK/d.xpt||; s| --device /dev/null||; s| --preset syscall:ioctl||; s| -j||")
	overs=() bad="" sus=()
	for _ in 1 2 3; do
		res=$($TIMED "$WORK/dd.out" "$WORK/dd.err" -- "$XP" $args -d 1)
		read -r rc tt ts te seen th <<< "$res"
		over=$(calc "$tt >= 0 ? $te - $tt - 1 : 99")
		overs+=("$over")
		sus+=("$tt")
		if [ "$rc" -ne 0 ] || ! within -0.05 "$over"; then
			bad="status $rc, overrun $over s: $(head -c 200 "$WORK/dd.err")"
		fi
	done
	read -r med n worst <<< "$(stats "${overs[@]}")"
	if [ -z "$bad" ] && within "$med" 1.0 && within "$worst" 3.0; then
		pass "stop: -d 1 under a flood ($name): ends after its second of tracing: overrun median $med s, max $worst s ($n runs: ${overs[*]}; start-ups ${sus[*]} s)"
	else
		fail "stop: -d 1 under a flood ($args): overrun median $med s (bound 1.0), max $worst s (cap 3.0) (${overs[*]}) $bad"
	fi
done
flood_off
