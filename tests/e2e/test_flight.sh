#!/usr/bin/env bash
# record --last: the flight recorder. ioctl_driver --flight makes one failing
# and one slow ioctl at known times while a plain `record` of the same calls
# runs beside the flight recorder; each trigger's file must hold exactly the
# plain recording's records of its window, and report and export read it.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DRV=$E2E_BIN/ioctl_driver
LOOP=build/bench/ioctl_loop

if [ -x "$XP" ]; then
	one_line "--trigger wants --last" 2 "--trigger needs --last" record -o "$WORK/d" --trigger sigusr1
	one_line "--last wants a --trigger" 2 "--last needs at least one --trigger" record -o "$WORK/d" --last 5
	one_line "a condition is checked" 2 "the condition is error, over" record -o "$WORK/d" --last 5 --trigger ioctl:slow
	one_line "over= wants a time" 2 "wants a time after over=" record -o "$WORK/d" --last 5 --trigger ioctl:over=fast
	one_line "error= wants an errno" 2 "wants an errno" record -o "$WORK/d" --last 5 --trigger ioctl:error=ENOPE
	one_line "a capability without the condition" 2 "sched has no 'error' condition" \
		record -o "$WORK/d" --last 5 --trigger sched:error sched
	one_line "the capability must be recorded" 2 "ioctl is not recorded" \
		record -o "$WORK/d" --last 5 --trigger ioctl:error sched
	one_line "--last wants a directory, not stdout" 2 "names a directory" record -o - --last 5 --trigger sigusr1
	echo x > "$WORK/file"
	one_line "-o must not be a file" 2 "is not a directory" record -o "$WORK/file" --last 5 --trigger sigusr1
	mkdir "$WORK/real" && ln -s "$WORK/real" "$WORK/link"
	one_line "-o must not be a symbolic link" 2 "is a symbolic link" record -o "$WORK/link" --last 5 --trigger sigusr1
	[ -e "$WORK/d" ] && fail "a refused run makes no directory" || pass "a refused run makes no directory"
else
	skip "flight usage: $XP is not built"
fi

why=$(bpf_unavailable)
[ -z "$why" ] && [ ! -x "$DRV" ] && why="$DRV is not built"
if [ -n "$why" ]; then
	skip "flight recorder end to end: $why"
	exit 0
fi

# The records of FILE's Perfetto export: (absolute ns, dur ns, pid, tid, name, ret), one a line.
slices() { # FILE OUT
	"$XP" report "$1" --info --json > "$2.info" &&
	"$XP" export --perfetto "$1" --format json -o "$2.json" 2> /dev/null &&
	python3 - "$2.info" "$2.json" > "$2" <<'PY'
import json, sys
start = json.load(open(sys.argv[1]))["start_ns"]
for e in json.load(open(sys.argv[2]))["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") == "ioctl":
        print(start + round(e["ts"] * 1000), round(e["dur"] * 1000), e["pid"], e["tid"], e["name"], json.dumps(e["args"], sort_keys=True).replace(" ", ""))
PY
}

# --- each trigger's window, record by record ---------------------------
OUT=$WORK/flight
LAST=0.3 AFTER=0.2
# serve runs beside them too, as on a machine that exports its metrics
SERVE=
if start_tracer srv serve --listen 127.0.0.1:0 --device /dev/null -c xpt-flight ioctl; then
	SERVE=$TRACER
fi
if start_tracer full record -o "$WORK/full.xpt" --device /dev/null -c xpt-flight &&
	FULL=$TRACER && start_tracer fl record --last $LAST --after $AFTER --holdoff 0 -o "$OUT" \
		--trigger ioctl:error=EFAULT --trigger ioctl:over=20ms --device /dev/null -c xpt-flight; then
	"$DRV" --flight 2000 > "$WORK/drv.json"
	sleep 0.6	# the second window's --after, and the grace for what is still queued
	stop_tracer INT
	TRACER=$FULL stop_tracer INT
else
	fail "the flight recorder and record start: $(cat "$WORK"/*.err | head -c 400)"
fi
[ -n "$SERVE" ] || fail "serve beside the flight recorder did not start: $(head -c 300 "$WORK/srv.err")"
slow=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["slow_ns"])' "$WORK/drv.json" 2>/dev/null)
nerr=$(ls "$OUT" 2>/dev/null | grep -c -- '-ioctl-error\.xpt$')
nover=$(ls "$OUT" 2>/dev/null | grep -c -- '-ioctl-over\.xpt$')
if grep -q "created the directory $OUT" "$WORK/fl.err" && [ "$nerr" -eq 1 ] &&
	{ [ "$nover" -eq 1 ] || [ "$slow" = 0 ]; }; then
	pass "one file per trigger, named by time and trigger; the directory made and said"
else
	fail "files: $(ls "$OUT" 2>&1 | tr '\n' ' '), stderr: $(head -c 600 "$WORK/fl.err")"
fi
slices "$WORK/full.xpt" "$WORK/full.sl"
# serve, beside the flight recorder and record, counted every call they recorded
if [ -n "$SERVE" ]; then
	addr=$(grep -o 'http://[0-9.]*:[0-9]*' "$WORK/srv.err" | head -1)
	for _ in $(seq 1 25); do	# what it read last may still be on its way
		curl -s -o "$WORK/srv.prom" "$addr/metrics"
		served=$(awk '/^xputrace_ioctls_total\{/ { n += $NF } END { printf "%d", n }' "$WORK/srv.prom")
		[ "$served" -eq "$(wc -l < "$WORK/full.sl")" ] && break
		sleep 0.2
	done
	TRACER=$SERVE stop_tracer TERM
	if [ -s "$WORK/full.sl" ] && [ "$served" -eq "$(wc -l < "$WORK/full.sl")" ]; then
		pass "serve beside the flight recorder counts the calls it records ($served)"
	else
		fail "serve beside the flight recorder: $served calls served, $(wc -l < "$WORK/full.sl" 2>/dev/null) recorded"
	fi
fi
for f in "$OUT"/*.xpt; do
	[ -e "$f" ] || continue
	kind=${f##*-ioctl-}
	kind=${kind%.xpt}
	if slices "$f" "$WORK/one.sl" &&
		python3 - "$WORK/one.sl.info" "$WORK/full.sl" "$WORK/one.sl" "$WORK/drv.json" "$kind" "$LAST" "$AFTER" <<'PY'
import json, sys
info, full, one, drv, kind = sys.argv[1:6]
last, after = (round(float(x) * 1e9) for x in sys.argv[6:8])
start = json.load(open(info))["start_ns"]
trig = start + last                     # the window is [trigger - last, trigger + after]
want = json.load(open(drv))["error_ns" if kind == "error" else "slow_ns"]
# the trigger is the call's return: at once for the failing one, 30 ms or more for the slow one
lo, hi = (0, 5_000_000) if kind == "error" else (30_000_000, 2_000_000_000)
if not lo <= trig - want < hi:
    sys.exit(f"{kind}: the trigger at {trig} is not the return of the driver's call at {want}")
# two tracers time each call on their own (a few hundred ns apart): the same
# calls in the same order, each within TOL, and none of the plain recording's
# left out unless it lies within TOL of the window's edges
TOL = 50_000
rows = lambda p: [l.split() for l in open(p)]
full, got = rows(full), rows(one)
same = lambda a, b: a[2:] == b[2:] and abs(int(a[0]) - int(b[0])) < TOL
k = next((k for k in range(len(full)) if got and same(full[k], got[0])), None)
if k is None:
    sys.exit(f"{kind}: the file's first of {len(got)} records is not in the plain recording: {got[:1]}")
bad = next((i for i, g in enumerate(got) if k + i >= len(full) or not same(full[k + i], g)), None)
if bad is not None:
    sys.exit(f"{kind}: the file's {len(got)} records are not the plain recording's, in order: its "
             f"record {bad} {got[bad]} where the plain one has {full[k + bad] if k + bad < len(full) else 'none'}")
end = trig + after
if k > 0 and int(full[k - 1][0]) >= start + TOL:
    sys.exit(f"{kind}: a record of the window before the file's first is missing: {full[k - 1]}")
if k + len(got) < len(full) and int(full[k + len(got)][0]) <= end - TOL:
    sys.exit(f"{kind}: a record of the window after the file's last is missing: {full[k + len(got)]}")
if len(got) < 100:
    sys.exit(f"{kind}: only {len(got)} records in the window")
PY
	then
		pass "the $kind file holds exactly the plain recording's records of its window ($(wc -l < "$WORK/one.sl") records)"
	else
		fail "the $kind file's window (above)"
	fi
	if "$XP" report "$f" --json > "$WORK/one.json" 2> "$WORK/one.rerr" && [ ! -s "$WORK/one.rerr" ] &&
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["processes"] else 1)' "$WORK/one.json"; then
		pass "report reads the $kind file"
	else
		fail "report of the $kind file: $(head -c 300 "$WORK/one.rerr")"
	fi
done
[ "$slow" = 0 ] && skip "the ioctl:over file: userfaultfd is refused here"

# --- SIGUSR1: during start-up, and just before the end -----------------
OUT2=$WORK/usr1
"$XP" record --last 2 --after 1.5 --holdoff 0 --trigger sigusr1 -o "$OUT2" --device /dev/null -c xpt-flight \
	> /dev/null 2> "$WORK/u.err" &
U=$!
for _ in $(seq 1 200); do grep -qs "created the directory" "$WORK/u.err" && break; sleep 0.02; done
kill -USR1 $U
for _ in $(seq 1 200); do grep -qs "^Tracing" "$WORK/u.err" && break; sleep 0.05; done
early=$(grep -c "trigger sigusr1 at" "$WORK/u.err")
"$DRV" --flight 300 > /dev/null
# the first file is written once its --after is over; the second's is cut by the end
for _ in $(seq 1 100); do grep -qs "wrote " "$WORK/u.err" && break; sleep 0.05; done
kill -USR1 $U
sleep 0.05
kill -INT $U
wait $U
rc=$?
n=$(ls "$OUT2" 2>/dev/null | grep -c -- '-sigusr1\.xpt$')
if [ $rc -eq 0 ] && [ "$n" -eq 2 ] && grep -q "cut short: tracing ended" "$WORK/u.err" &&
	grep -q "2 triggers met, 2 files" "$WORK/u.err" && [ "$(ls -A "$OUT2" | grep -c '^\.')" -eq 0 ]; then
	pass "SIGUSR1 during start-up and at the end of tracing each write a file, no temporary left"
else
	fail "SIGUSR1: exit $rc, $n files ($early said before tracing), stderr: $(tail -c 600 "$WORK/u.err")"
fi
last=$(ls "$OUT2"/*-sigusr1.xpt 2>/dev/null | tail -1)
if [ -n "$last" ] && "$XP" export --perfetto "$last" --format json -o "$WORK/u.json" 2> /dev/null &&
	python3 -c 'import json,sys; ev=json.load(open(sys.argv[1]))["traceEvents"]; sys.exit(0 if sum(e.get("ph")=="X" for e in ev) >= 100 else 1)' "$WORK/u.json"; then
	pass "export reads a flight file (the driver's calls before SIGUSR1 are in it)"
else
	fail "export of $last"
fi

# one_file NAME LABEL SAID: the tracer NAME wrote one file $WORK/NAME/*-LABEL.xpt
# and said SAID; its report is $WORK/NAME.json
one_file() {
	local f
	f=$(ls "$WORK/$1"/*-"$2".xpt 2>/dev/null)
	[ "$(echo "$f" | grep -c .)" -eq 1 ] && grep -q "$3" "$WORK/$1.err" && "$XP" report "$f" --json > "$WORK/$1.json"
}

# --- latency:over: a pair longer than T -------------------------------
LDRV=$E2E_BIN/lat_driver
if [ -x "$LDRV" ] && "$XP" latency --help 2>/dev/null | grep -q -- --preset; then
	start_tracer lat record --last 1 --after 0.3 --trigger latency:over=30ms -o "$WORK/lat" \
		latency --preset syscall:clock_nanosleep -c lat_driver
	# two threads: three sleeps of 20 ms, three of 40 ms
	"$LDRV" sleep 2 3 20 > /dev/null
	sleep 0.8
	stop_tracer INT
	if one_file lat latency-over "3 triggers met, 1 file" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = sorted((k["count"], k["min_ns"] > 30e6) for k in d["keys"])
sys.exit(0 if d["pairs"] == 6 and n == [(3, False), (3, True)] else 1)' "$WORK/lat.json"; then
		pass "latency:over=30ms: the three 40 ms sleeps share one file, which has all six sleeps"
	else
		fail "latency:over: $(ls "$WORK/lat" 2>&1 | tr '\n' ' '), $(head -c 600 "$WORK/lat.err")"
	fi
else
	skip "latency:over: $LDRV is not built"
fi

# --- api:over: a traced call longer than T, by name ---------------------
ADRV=$E2E_BIN/api_driver ALIB=$E2E_BIN/libapiwork.so
if [ -x "$ADRV" ] && [ -r "$ALIB" ]; then
	mkdir -p "$WORK/ze" && cp "$ALIB" "$WORK/ze/libze_loader.so.1"
	start_tracer api record --last 1 --after 0.2 --trigger api:over=100ms:xptHang -o "$WORK/api" \
		api --lib "$WORK/ze/libze_loader.so.1:xptHang,zeMemFree" --device /dev/null
	# five rounds of calls, then xptHang(0) for as long as its input stays open (0.4 s)
	(sleep 0.4) | "$ADRV" "$WORK/ze/libze_loader.so.1" 1 5 --hang > /dev/null
	sleep 0.5
	stop_tracer INT
	if one_file api api-over "1 trigger met, 1 file" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = {f["function"]: f["calls"] for f in d["functions"]}
sys.exit(0 if c.get("xptHang") == 1 and c.get("zeMemFree") == 5 else 1)' "$WORK/api.json"; then
		pass "api:over=100ms:xptHang: one file, with the hung call and the calls before it"
	else
		fail "api:over: $(ls "$WORK/api" 2>&1 | tr '\n' ' '), $(head -c 600 "$WORK/api.err")"
	fi
else
	skip "api:over: $ADRV is not built"
fi

# --- a run that fails before tracing leaves no directory of its own ---
"$XP" record --last 1 --trigger sigusr1 -o "$WORK/nosched" -d 1 sched > /dev/null 2> "$WORK/ns.err"
rc=$?
if [ $rc -eq 0 ]; then
	skip "a failed run removes the directory it made: sched runs here"
elif [ ! -e "$WORK/nosched" ] && grep -q "removed the directory" "$WORK/ns.err"; then
	pass "a failed run removes the directory it made, and says so"
else
	fail "failed run (exit $rc): $(ls -d "$WORK/nosched" 2>&1), $(head -c 300 "$WORK/ns.err")"
fi

# --- memory: the ring stays within --ring-size under a flood -----------
if [ -x "$LOOP" ]; then
	# (a sanitized build keeps freed blocks in its quarantine, 256 MB unless told:
	# a small one here, so that what is measured is the recorder's own)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:quarantine_size_mb=4} \
		start_tracer flood record --last 30 --ring-size 4 --trigger sigusr1 -o "$WORK/flood" --device /dev/null -c ioctl_loop
	# what it holds before the flood: the bound is on what the flood adds
	base=$(awk '/^VmRSS/ { print $2 }' /proc/$TRACER/status 2>/dev/null)
	"$LOOP" 200000 25 > /dev/null &
	L=$!
	hwm=0
	while kill -0 $L 2>/dev/null; do
		h=$(awk '/^VmHWM/ { print $2 }' /proc/$TRACER/status 2>/dev/null)
		[ -n "$h" ] && hwm=$h
		sleep 0.2
	done
	stop_tracer INT
	peak=$(sed -n 's/.*ring: peak \([0-9.]*\) MiB of 4 MiB.*/\1/p' "$WORK/flood.err")
	cut=$(sed -n 's/.*, \([0-9]*\) blocks ([0-9]* records) dropped by --ring-size.*/\1/p' "$WORK/flood.err")
	base=${base:-0}
	echo "flood: VmRSS ${base} kB before, VmHWM ${hwm} kB, ring peak ${peak:-?} MiB of 4, ${cut:-?} blocks dropped by the bound"
	# (the flood writes about 5 M records, 80 MB unbounded; the ring holds 4 MiB)
	if [ -n "$peak" ] && python3 -c "import sys; sys.exit(0 if float('$peak') <= 4.0 else 1)" &&
		[ "${cut:-0}" -gt 0 ] && [ "$hwm" -gt 0 ] && [ $((hwm - base)) -lt $((24 * 1024)) ]; then
		pass "a flood keeps the ring within --ring-size (peak $peak MiB of 4) and the recorder's growth under 24 MiB ($base -> $hwm kB)"
	else
		fail "flood: $(tail -3 "$WORK/flood.err")"
	fi
else
	skip "the flood: $LOOP is not built"
fi
