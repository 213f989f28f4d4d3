#!/usr/bin/env bash
# `xputrace cuda` end to end without a GPU: libxputrace-cuda.so on the
# stand-in libcupti (tests/e2e/lib/cuptistub.c), driven by cuda_app, whose
# kernels, copies, memsets, launch calls and dropped records are all known
# (see cuda_app.c): counts, GPU time sums and busy time (the union of
# overlapping kernels) exact, launch -> start within its bucket, live,
# from a process that mapped the library before tracing, on both of the
# library's clocks, in two cgroups, and per record with --stream.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
APP=$E2E_BIN/cuda_app
CULIB=$(realpath -m build/libxputrace-cuda.so)
export CUDA_INJECTION64_PATH=$CULIB XPUTRACE_CUPTI=$(realpath -m "$E2E_BIN/libcupti-stub.so")

if [ -x "$XP" ]; then
	one_line "cuda rejects an empty --lib" 2 "cuda: --lib: a path" cuda --lib ''
	one_line "cuda rejects --lib twice" 2 "cuda: --lib given twice" cuda --lib /a --lib /b
else
	skip "cuda bad input: $XP is not built"
fi

why=$(bpf_unavailable)
for f in "$APP" "$CULIB" "$XPUTRACE_CUPTI"; do
	[ -e "$f" ] || why=${why:-"$f is not built"}
done
if [ -n "$why" ]; then
	for t in not-found summary mapped-process cgroups stream live grace record-report export; do
		skip "cuda $t: $why"
	done
	exit 0
fi

# the library nowhere: one line, exit 1 (unless a copy is installed where the loader looks)
if ls /usr/local/lib/libxputrace-cuda.so /usr/lib/libxputrace-cuda.so /usr/lib/x86_64-linux-gnu/libxputrace-cuda.so \
	> /dev/null 2>&1 || grep -qs libxputrace-cuda /proc/[0-9]*/maps; then
	skip "cuda not-found: a libxputrace-cuda.so is installed or mapped here"
else
	one_line "cuda says in one line that the library is nowhere" 1 "libxputrace-cuda.so: no running process maps it" \
		cuda --lib /nonexistent/libxputrace-cuda.so -d 1
fi

# check LABEL OUT APPOUT CHECK...: tests/e2e/check_cuda.py
check() {
	local label=$1 msg
	shift
	if msg=$(python3 tests/e2e/check_cuda.py "$@" 2>&1); then pass "$label"; else fail "$label: $(echo "$msg" | head -c 700)"; fi
}

# 1. live: 4 threads launch; the library named by --lib
if start_tracer sum cuda --lib "$CULIB" -j; then
	"$APP" -n 200 -s 3 -d 20 -c 10 -x 7 -t 4 > "$WORK/sum.pid"
	sleep 0.3
	stop_tracer INT
	check "cuda counts kernels, joins, copies and CUPTI's drops exactly; busy is the union of overlapping kernels" \
		"$WORK/sum.out" "$WORK/sum.pid" exact totals
else
	fail "cuda summary: tracer did not start"
fi

# 2. a process that mapped the library before tracing: found in its maps (no --lib);
# the library's own clock offset (no timestamp callback)
rm -f "$WORK/go"
XPSTUB_NO_TSCB=1 "$APP" -n 200 -s 3 -d 20 -c 10 -x 7 -w "$WORK/go" > "$WORK/m.pid" &
MJOB=$!
for _ in $(seq 1 100); do grep -qs libxputrace-cuda "/proc/$MJOB/maps" && break; sleep 0.05; done
if start_tracer map cuda -p "$MJOB" -j; then
	touch "$WORK/go"
	wait $MJOB
	sleep 0.3
	stop_tracer INT
	check "cuda finds the library in a running process's maps; CUPTI's own clock converted" \
		"$WORK/map.out" "$WORK/m.pid" exact totals
else
	fail "cuda mapped-process: tracer did not start"
fi
kill $MJOB 2>/dev/null

# 3. two processes in two cgroups at once: each one's busy time and cgroup
CG=$(cgroup2_root)
if [ -z "$CG" ] || ! mkdir "$CG/xp-cuda-a.$$" "$CG/xp-cuda-b.$$" 2>/dev/null; then
	skip "cuda cgroups: no writable cgroup v2 hierarchy"
else
	if start_tracer cg cuda --lib "$CULIB" -j; then
		in_cgroup "$CG/xp-cuda-a.$$" "$APP" -n 200 -s 3 -d 20 -c 10 -x 7 > "$WORK/a.pid" &
		AJOB=$!
		in_cgroup "$CG/xp-cuda-b.$$" "$APP" -n 100 -s 2 -d 0 -c 0 -x 0 > "$WORK/b.pid" &
		BJOB=$!
		wait $AJOB $BJOB
		sleep 0.3
		stop_tracer INT
		check "cuda: a process in one cgroup, exact, its cgroup named" "$WORK/cg.out" "$WORK/a.pid" exact \
			cgroup="$(stat -c %i "$CG/xp-cuda-a.$$")"
		check "cuda: another process in another cgroup at once, exact" "$WORK/cg.out" "$WORK/b.pid" \
			small="$(stat -c %i "$CG/xp-cuda-b.$$")"
	else
		fail "cuda cgroups: tracer did not start"
	fi
	rmdir "$CG/xp-cuda-a.$$" "$CG/xp-cuda-b.$$" 2>/dev/null
fi

# 4. --stream -j: one object per kernel, copy, memset, launch call and drop count
if start_tracer stream cuda --lib "$CULIB" --stream -j; then
	"$APP" -n 50 -s 2 -d 5 -c 3 -x 2 > "$WORK/s.pid"
	sleep 0.3
	stop_tracer INT
	check "cuda --stream: one object per kernel (joined), launch, copy, memset, drop count" \
		"$WORK/stream.out" "$WORK/s.pid" stream
else
	fail "cuda stream: tracer did not start"
fi

# 5. a process that runs on after its work: its records reach the tracer while it
# runs (the library flushes each second while traced, CUPTI only when a buffer
# fills); the library collects while traced and stops when the tracer leaves
if start_tracer live cuda --lib "$CULIB" --stream -j; then
	"$APP" -n 50 -s 2 -d 5 -c 3 -x 2 -z 6000 > "$WORK/l.pid" &
	LJOB=$!
	for _ in $(seq 1 50); do
		grep -qs '^drops' "$WORK/l.pid" &&
			python3 tests/e2e/check_cuda.py "$WORK/live.out" "$WORK/l.pid" stream > /dev/null 2>&1 && break
		sleep 0.1
	done
	if ! kill -0 $LJOB 2> /dev/null; then
		fail "cuda live: the app ended before its records came (6 s)"
	elif msg=$(python3 tests/e2e/check_cuda.py "$WORK/live.out" "$WORK/l.pid" stream 2>&1); then
		pass "cuda: a running process's kernels, launches, copies and drops reach the tracer while it runs"
	else
		fail "cuda live: not all records within 5 s of the work: $msg"
	fi
	stop_tracer INT
	wait $LJOB
	if [ "$(grep '^collecting' "$WORK/l.pid" | tr '\n' ' ')" = "collecting 1 collecting 0 " ]; then
		pass "cuda: the library collects while traced and stops once the tracer has gone"
	else
		fail "cuda live: collection was: $(grep '^collecting' "$WORK/l.pid" | tr '\n' ' ')"
	fi
else
	fail "cuda live: tracer did not start"
fi

# 6. a tracer that comes after a process's work, in its first seconds (as serve
# finds a new process by its environment): the library held the records for it
XPUTRACE_CUDA_GRACE_MS=20000 "$APP" -n 50 -s 2 -d 5 -c 3 -x 2 -z 20000 > "$WORK/g.pid" &
GJOB=$!
for _ in $(seq 1 100); do grep -qs '^drops' "$WORK/g.pid" && break; sleep 0.05; done
if start_tracer grace cuda -p $GJOB --stream -j; then
	for _ in $(seq 1 50); do
		python3 tests/e2e/check_cuda.py "$WORK/grace.out" "$WORK/g.pid" stream > /dev/null 2>&1 && break
		sleep 0.1
	done
	if msg=$(python3 tests/e2e/check_cuda.py "$WORK/grace.out" "$WORK/g.pid" stream 2>&1); then
		pass "cuda: a tracer attached after a new process's work, in its grace, gets all of it, joined"
	else
		fail "cuda grace: $msg"
	fi
	stop_tracer INT
else
	fail "cuda grace: tracer did not start"
fi
kill $GJOB 2> /dev/null
wait $GJOB 2> /dev/null

# 7. record, then report from the file: the same exact counts
if start_tracer rec record -o "$WORK/cuda.xpt" cuda --lib "$CULIB"; then
	"$APP" -n 200 -s 3 -d 20 -c 10 -x 7 -t 2 > "$WORK/r.pid"
	sleep 0.3
	stop_tracer INT
	if "$XP" report "$WORK/cuda.xpt" cuda -j > "$WORK/rep.out" 2> "$WORK/rep.err"; then
		check "cuda report from a recording: the same exact counts, joins and drops" \
			"$WORK/rep.out" "$WORK/r.pid" exact totals
		if "$XP" export --perfetto "$WORK/cuda.xpt" --format json -o "$WORK/cuda.json" 2> "$WORK/exp.err"; then
			check "cuda export --perfetto: kernels on a track per GPU stream, an arrow from each launch call" \
				"$WORK/cuda.json" "$WORK/r.pid" perfetto
		else
			fail "cuda export: $(head -c 300 "$WORK/exp.err")"
		fi
		pb_agrees "cuda export --perfetto: the protobuf has the JSON's tracks, slices and flows" "$WORK/cuda.xpt"
	else
		fail "cuda record-report: report failed: $(head -c 300 "$WORK/rep.err")"
	fi
else
	fail "cuda record-report: record did not start"
fi
