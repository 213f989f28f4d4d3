#!/usr/bin/env bash
# `serve` and `top` on cuda's records, without a GPU: libxputrace-cuda.so on
# the stand-in libcupti, driven by cuda_app (see test_cuda.sh). serve started
# before any process maps the library attaches it when one does, and
# scrapes exact kernels, busy seconds (source="cupti", the union of the
# overlapping kernels) and bytes per cgroup; serve on a machine where no
# process maps it still serves ioctls and ends with status 0; top shows
# the process's GPU time from cupti.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
APP=$E2E_BIN/cuda_app
DRV=$E2E_BIN/ioctl_driver
CULIB=$(realpath -m build/libxputrace-cuda.so)
export CUDA_INJECTION64_PATH=$CULIB XPUTRACE_CUPTI=$(realpath -m "$E2E_BIN/libcupti-stub.so")
CHECK="python3 tests/e2e/check_cuda_serve.py"

cases="attach-later no-library top"
why=$(bpf_unavailable)
for f in "$APP" "$CULIB" "$XPUTRACE_CUPTI" "$DRV"; do
	[ -e "$f" ] || why=${why:-"$f is not built"}
done
command -v curl > /dev/null || why=${why:-"curl is missing (scripts/deps.sh installs it)"}
cg2=$(cgroup2_root)
[ -n "$cg2" ] || why=${why:-"no cgroup v2 file system mounted"}
if [ -z "$why" ]; then
	A=$cg2/xpt-cuserve-$$-a B=$cg2/xpt-cuserve-$$-b
	if ! mkdir "$A" "$B" 2> /dev/null; then
		why="cgroup v2 at $cg2 is not writable here"
		rmdir "$A" 2> /dev/null
	fi
fi
if [ -n "$why" ]; then
	for t in $cases; do skip "cuda serve $t: $why"; done
	exit 0
fi
trap "$MAIN_ONLY"' kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rmdir "$A" "$B" 2>/dev/null; rm -rf "$WORK"' EXIT
CG_A=/${A#"$cg2"/} CG_B=/${B#"$cg2"/}

addr_of() { # NAME: the address serve printed
	grep -o 'http://[0-9.]*:[0-9]*' "$WORK/$1.err" | head -1 | sed 's|http://||'
}
# poll NAME CHECK-ARGS...: scrapes until the check holds (records come each second, and at the app's exit), at most 10 s
poll() {
	local name=$1 addr
	shift
	addr=$(addr_of "$name")
	for _ in $(seq 1 50); do
		curl -s -o "$WORK/$name.prom" "http://$addr/metrics"
		msg=$($CHECK scrape "$WORK/$name.prom" "$@") && return 0
		sleep 0.2
	done
	return 1
}
mapped() { grep -qs libxputrace-cuda /proc/[0-9]*/maps; }

# 1. serve started before any process maps the library (no --lib): two apps in
# two cgroups, which wait until serve has found the file in their mappings
if mapped; then
	skip "cuda serve attach-later: a process maps a libxputrace-cuda.so already"
elif start_tracer late serve --listen 127.0.0.1:0; then
	rm -f "$WORK/go"
	in_cgroup "$A" "$APP" -n 200 -s 3 -d 20 -c 10 -x 7 -w "$WORK/go" > "$WORK/a.out" &
	AJOB=$!
	in_cgroup "$B" "$APP" -n 100 -s 2 -d 0 -c 0 -x 0 -w "$WORK/go" > "$WORK/b.out" &
	BJOB=$!
	for _ in $(seq 1 150); do
		grep -q "found while tracing (.*), traced from now on" "$WORK/late.err" && break
		sleep 0.1
	done
	touch "$WORK/go"
	wait $AJOB $BJOB
	# the environment of a new process (each second) names the file before
	# the scan of the mappings (each 5 s) sees it: a short job is not missed
	if poll late "$CG_A" "$WORK/a.out" && poll late "$CG_B" "$WORK/b.out" &&
		{ grep -q "found while tracing (named by a new process's CUDA_INJECTION64_PATH)" "$WORK/late.err" ||
			! msg="found another way: $(grep found "$WORK/late.err")"; }; then
		pass "cuda serve: attached once a new process named the library in CUDA_INJECTION64_PATH; kernels, busy (cupti) and bytes exact per cgroup"
	else
		fail "cuda serve attach-later: $msg; serve said: $(head -c 500 "$WORK/late.err")"
	fi
	stop_tracer TERM
	rc=$?
	[ $rc -eq 0 ] || fail "cuda serve attach-later: status $rc at SIGTERM"
else
	fail "cuda serve attach-later: serve did not start"
fi

# 2. no process maps the library, none given: said, ioctls served, status 0 at SIGTERM
if mapped; then
	skip "cuda serve no-library: a process maps a libxputrace-cuda.so"
elif start_tracer nolib serve --listen 127.0.0.1:0 --device /dev/null; then
	in_cgroup "$B" "$DRV" 1 > /dev/null
	for _ in $(seq 1 50); do
		curl -s -o "$WORK/nolib.prom" "http://$(addr_of nolib)/metrics"
		grep -q "^xputrace_ioctls_total{cgroup=\"$CG_B\"" "$WORK/nolib.prom" && break
		sleep 0.2
	done
	stop_tracer TERM
	rc=$?
	if [ $rc -eq 0 ] && grep -q "cuda (usdt, once a process maps libxputrace-cuda.so)" "$WORK/nolib.err" &&
		grep -q "^xputrace_ioctls_total{cgroup=\"$CG_B\"" "$WORK/nolib.prom"; then
		pass "cuda serve: with no library anywhere, said, ioctls served, status 0 at SIGTERM"
	else
		fail "cuda serve no-library: status $rc: $(head -c 400 "$WORK/nolib.err")"
	fi
else
	fail "cuda serve no-library: serve did not start: $(head -c 300 "$WORK/nolib.err")"
fi

# 3. top: the app's GPU% from cupti, its rates times the refreshes adding up to its busy time
if start_tracer top top --lib "$CULIB" -G "$A" -i 0.5 -d 3; then
	in_cgroup "$A" "$APP" -n 200 -s 3 -d 20 -c 10 -x 7 > "$WORK/t.out"
	wait $TRACER
	if msg=$($CHECK top "$WORK/top.out" "$WORK/t.out"); then
		pass "cuda top: a process's GPU% from cupti adds up to its busy time"
	else
		fail "cuda top: $msg: $(head -c 500 "$WORK/top.out" | tr '\n' '|')"
	fi
else
	fail "cuda top: did not start"
fi
