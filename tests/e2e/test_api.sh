#!/usr/bin/env bash
# `xputrace api` end to end on this machine's kernel: a stand-in runtime
# (tests/e2e/lib/apiwork.c, copied as libze_loader.so.1 and libOpenCL.so.1)
# issues known ioctls on /dev/null inside known calls, from several threads,
# in a process running before tracing began (found by its mappings) and one
# that starts after; then Debian's real OpenCL and Level Zero loaders.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DRV=$E2E_BIN/api_driver
LIB=$E2E_BIN/libapiwork.so
CLIENT=$E2E_BIN/api_client
ROCM=$E2E_BIN/api_rocm

# Bad input: one line, exit 2, before anything is loaded.
if [ -x "$XP" ]; then
	one_line "api rejects an empty --lib" 2 "api: --lib wants PATH" api --lib ''
	one_line "api rejects an empty function list" 2 "not a function name" api --lib 'libxpt.so:'
	one_line "api rejects a bad function name" 2 "'a b' is not a function name" api --lib 'libxpt.so:a b'
	one_line "api rejects --lib without functions for a library it has no list for" 2 "no built-in list" \
		api --lib /tmp/libxpt.so
else
	skip "api bad input: $XP is not built"
fi

why=$(bpf_unavailable)
for f in "$DRV" "$LIB" "$CLIENT" "$ROCM"; do
	[ -e "$f" ] || why=${why:-"$f is not built"}
done
if [ -n "$why" ]; then
	for t in summary mapped-process notes stream record-report misses real-loaders rocm; do
		skip "api $t: $why"
	done
	exit 0
fi
mkdir -p "$WORK/ze" "$WORK/ocl"
cp "$LIB" "$WORK/ze/libze_loader.so.1"
cp "$LIB" "$WORK/ocl/libOpenCL.so.1"

# 1. summary: process B maps its libOpenCL.so.1 copy before tracing begins
# (no --lib names it: found through /proc/PID/maps) and calls once tracing
# runs; process A starts after, with 4 threads, on the copy --lib names
mkfifo "$WORK/go"
"$DRV" "$WORK/ocl/libOpenCL.so.1" 2 10 --wait < "$WORK/go" > "$WORK/b.pid" &
BJOB=$!
exec 7> "$WORK/go"
for _ in $(seq 1 100); do [ -s "$WORK/b.pid" ] && break; sleep 0.05; done
if start_tracer sum api --lib "$WORK/ze/libze_loader.so.1:clEnqueueNDRangeKernel" \
	--lib /nonexistent/libxpt.so.1:xpt_submit --device /dev/null -j; then
	echo go >&7
	exec 7>&-
	wait $BJOB
	"$DRV" "$WORK/ze/libze_loader.so.1" 4 25 > "$WORK/a.pid"
	stop_tracer INT
else
	exec 7>&-
	fail "api summary: tracer did not start"
fi
check_sum() { # label python-body: d (the summary), row(pid, fn), A, B
	local label=$1 msg
	if msg=$(python3 - "$WORK/sum.out" "$WORK/a.pid" "$WORK/b.pid" 2>&1 <<PY
import json, sys
d = json.load(open(sys.argv[1]))
A = json.load(open(sys.argv[2]))["pid"]
B = json.load(open(sys.argv[3]))["pid"]
bad = []
def want(c, m):
    if not c: bad.append(m)
def row(pid, fn):
    r = [f for f in d["functions"] if f["pid"] == pid and f["function"] == fn]
    return r[0] if len(r) == 1 else {"missing": fn}
def same(r, **kw):
    for k, v in kw.items():
        want(r.get(k) == v, f"{r.get('function', r)} {k}: {r.get(k)} != {v}")
$2
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then pass "$label"; else fail "$label: $(echo "$msg" | head -c 600)"; fi
}
check_sum "api joins each call with exactly its thread's ioctls (4 threads, a process started after tracing)" '
same(row(A, "zeCommandQueueExecuteCommandLists"), calls=200, errors=0, ioctls=600, max_ioctls_per_call=3, calls_without_ioctl=0)
same(row(A, "clEnqueueNDRangeKernel"), calls=100, ioctls=400, max_ioctls_per_call=4, lib="libze_loader.so.1")
same(row(A, "zeFenceHostSynchronize"), calls=100, ioctls=100, errors=0, ioctl_names={"_IOWR(\x27x\x27,0x01,8)": 100})
same(row(A, "zeMemFree"), calls=100, errors=100, errors_by_return={"0x78000004": 100}, ioctls=0, calls_without_ioctl=100)
want(row(A, "zeMemFree")["latency_ns"]["count"] == 100, "zeMemFree timed")
want(d["drops"]["total"] == 0 and d["calls_not_counted"] == 0 and d["ioctls_lost"] == 0, "nothing lost")'
check_sum "api finds a library a running process maps and counts its calls and codes" '
same(row(B, "clFinish"), calls=20, errors=20, errors_by_return={"-36": 20}, ioctls=40, lib="libOpenCL.so.1")
same(row(B, "clEnqueueNDRangeKernel"), calls=20, ioctls=80)
want(not [f for f in d["functions"] if f["pid"] == B and f["function"].startswith("ze")], "B: ze functions of a libOpenCL file traced")'
check_sum "api notes a missing --lib file and functions a library lacks, and still runs" '
n = " | ".join(d["notes"])
want("--lib /nonexistent/libxpt.so.1: no such file" in n, "no note on the missing file: " + n)
want("libze_loader.so.1: 6 of 10 functions not in it: zeCommandListAppendLaunchKernel" in n, "no note on missing functions: " + n)'

# 2. --stream: one JSON line per call, with its ioctls
if start_tracer stream api --lib "$WORK/ze/libze_loader.so.1" --device /dev/null --stream -j; then
	"$DRV" "$WORK/ze/libze_loader.so.1" 3 5 > "$WORK/s.pid"
	stop_tracer INT
fi
if msg=$(python3 - "$WORK/stream.out" "$WORK/s.pid" 2>&1 <<'PY'
import json, sys
pid = json.load(open(sys.argv[2]))["pid"]
calls = []
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if isinstance(o, dict) and o.get("pid") == pid and "function" in o:
        calls.append(o)
by = {}
for c in calls:
    by.setdefault(c["function"], []).append(c)
bad = []
ex = by.get("zeCommandQueueExecuteCommandLists", [])
if len(ex) != 30 or any(c["ioctls"] != 3 or len(c["ioctl_list"]) != 3 or c["error"] for c in ex):
    bad.append(f"ExecuteCommandLists: {len(ex)} lines, ioctls {[c['ioctls'] for c in ex][:5]}")
if any(i["name"] != "_IO('T',0x21)" for c in ex for i in c["ioctl_list"]):
    bad.append("ioctl names")
mf = by.get("zeMemFree", [])
if len(mf) != 15 or any(c["ioctls"] != 0 or not c["error"] or c["ret"] != 0x78000004 for c in mf):
    bad.append(f"zeMemFree: {len(mf)} lines")
fs = by.get("zeFenceHostSynchronize", [])
if len(fs) != 15 or any(c["ioctls"] != 1 or c["ioctl_list"][0]["ret"] != -25 for c in fs):
    bad.append(f"zeFenceHostSynchronize: {len(fs)} lines")
if len({c["tid"] for c in calls}) != 3:
    bad.append("threads: %d" % len({c["tid"] for c in calls}))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then pass "api --stream: one line per call with exactly its ioctls"; else fail "api --stream: $(echo "$msg" | head -c 400)"; fi

# 2b. The hook: one uprobe.multi link per file and direction where the kernel
# has them (6.6+), else a uprobe each; both join alike. The hook a run used
# is in its summary.
kv=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
want_hook=$([ "$kv" -ge 6006 ] && echo uprobe.multi+tracepoint || echo uprobe+tracepoint)
got_hook=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hook"])' "$WORK/sum.out" 2>/dev/null)
if [ "$got_hook" = "$want_hook" ]; then pass "api hook on kernel $(uname -r): $got_hook"
else fail "api hook on kernel $(uname -r): $got_hook, not $want_hook"; fi
for hk in uprobe uprobe.multi; do
	[ $hk = uprobe.multi ] && [ "$kv" -lt 6006 ] && { skip "api --hook uprobe.multi: kernel $(uname -r) predates it (6.6)"; continue; }
	if XPUTRACE_API_HOOK=$hk start_tracer hk api --lib "$WORK/ze/libze_loader.so.1" --device /dev/null -j; then
		"$DRV" "$WORK/ze/libze_loader.so.1" 2 10 > "$WORK/hk.pid"
		stop_tracer INT
	fi
	if msg=$(python3 - "$WORK/hk.out" "$WORK/hk.pid" "$hk" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); pid = json.load(open(sys.argv[2]))["pid"]
got = {f["function"]: (f["calls"], f["ioctls"]) for f in d["functions"] if f["pid"] == pid}
want = {"zeCommandQueueExecuteCommandLists": (40, 120), "zeFenceHostSynchronize": (20, 20), "zeMemFree": (20, 0)}
bad = [f"{k}: {got.get(k)} != {v}" for k, v in want.items() if got.get(k) != v]
if d["hook"] != sys.argv[3] + "+tracepoint":
    bad.append("hook " + d["hook"])
print("; ".join(bad)); sys.exit(1 if bad else 0)
PY
	); then pass "api with a $hk hook: exact calls and ioctls"; else fail "api with a $hk hook: $(echo "$msg" | head -c 300)"; fi
done

# 3. record and report: the file reports what the live run counted
if start_tracer rec record -o "$WORK/api.xpt" api --lib "$WORK/ze/libze_loader.so.1" --device /dev/null; then
	"$DRV" "$WORK/ze/libze_loader.so.1" 2 5 > "$WORK/r.pid"
	stop_tracer INT
fi
"$XP" report "$WORK/api.xpt" api --json > "$WORK/rep.json" 2> "$WORK/rep.err"
if python3 - "$WORK/rep.json" "$WORK/r.pid" <<'PY' > "$WORK/rep.chk" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
pid = json.load(open(sys.argv[2]))["pid"]
r = {f["function"]: f for f in d["functions"] if f["pid"] == pid}
ok = r["zeCommandQueueExecuteCommandLists"]["calls"] == 20 and r["zeCommandQueueExecuteCommandLists"]["ioctls"] == 60 \
     and r["zeMemFree"]["errors"] == 10 and r["zeFenceHostSynchronize"]["ioctls"] == 10
sys.exit(0 if ok else 1)
PY
then pass "api record/report: the file joins the same"; else fail "api record/report: $(head -c 300 "$WORK/rep.err" "$WORK/rep.chk")"; fi
pb_agrees "api: the native Perfetto export of the recording agrees with the JSON" "$WORK/api.xpt"
# the export: each call a slice on its thread, its ioctls slices inside it
"$XP" export --perfetto "$WORK/api.xpt" --format json -o "$WORK/api.pf.json" --force 2> "$WORK/api.pf.err"
if msg=$(python3 - "$WORK/api.pf.json" "$WORK/r.pid" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
pid = json.load(open(sys.argv[2]))["pid"]
calls = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "api" and e["pid"] == pid]
ioc = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "ioctl" and e["pid"] == pid]
bad = []
by = {}
for c in calls:
    by[c["name"]] = by.get(c["name"], 0) + 1
# ze's built-in list: clEnqueueNDRangeKernel's calls (and their ioctls) are not traced here
if by != {"zeCommandQueueExecuteCommandLists": 20, "zeFenceHostSynchronize": 10, "zeMemFree": 10}:
    bad.append(f"call slices {by}")
if len(ioc) != 70:
    bad.append(f"{len(ioc)} ioctl slices, not 70")
def inside(i):
    return [c for c in calls if c["tid"] == i["tid"] and c["ts"] <= i["ts"] and i["ts"] + i["dur"] <= c["ts"] + c["dur"]]
lone = [i for i in ioc if len(inside(i)) != 1]
if lone:
    bad.append(f"{len(lone)} ioctl slices not inside exactly one call of their thread")
ex = [c for c in calls if c["name"] == "zeCommandQueueExecuteCommandLists"]
if any(c["args"].get("ioctls") != 3 or c["args"].get("lib") != "libze_loader.so.1" for c in ex):
    bad.append("ExecuteCommandLists args")
print("; ".join(bad)); sys.exit(1 if bad else 0)
PY
); then pass "api export: each call a slice on its thread with its ioctls inside it"
else fail "api export: $(echo "$msg" | head -c 300) $(head -c 200 "$WORK/api.pf.err")"; fi

# 4. What api would miss. The library replaced by rename while tracing (as a
# package upgrade does): a process started after it is traced on the new
# file, and a note says so. A call whose process ends inside it (_exit) and
# one still in flight at the end: counted, by function, in the notes and JSON.
mkdir -p "$WORK/up"
cp "$LIB" "$WORK/up/libze_loader.so.1"
if start_tracer miss api --lib "$WORK/up/libze_loader.so.1:xptExitInside,xptHang" --device /dev/null -j; then
	"$DRV" "$WORK/up/libze_loader.so.1" 1 10 > "$WORK/m1.pid"
	"$DRV" "$WORK/up/libze_loader.so.1" 1 5 --exit > "$WORK/m2.pid"
	cp "$LIB" "$WORK/up/new.so" && mv "$WORK/up/new.so" "$WORK/up/libze_loader.so.1"
	sleep 4	# the runner looks once a second
	"$DRV" "$WORK/up/libze_loader.so.1" 1 100 > "$WORK/m3.pid"
	mkfifo "$WORK/hang"
	"$DRV" "$WORK/up/libze_loader.so.1" 1 1 --hang < "$WORK/hang" > "$WORK/m4.pid" &
	HJOB=$!
	exec 8> "$WORK/hang"
	for _ in $(seq 1 100); do grep -q hang "$WORK/m4.pid" && break; sleep 0.05; done
	sleep 0.5
	stop_tracer INT
	exec 8>&-
	wait $HJOB
else
	fail "api misses: tracer did not start"
fi
if msg=$(python3 - "$WORK/miss.out" "$WORK"/m[1-4].pid 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = [json.loads(open(f).readline())["pid"] for f in sys.argv[2:]]
bad = []
def calls(pid):
    return {f["function"]: f["calls"] for f in d["functions"] if f["pid"] == pid}
ze = {"zeCommandQueueExecuteCommandLists": 200, "zeFenceHostSynchronize": 100, "zeMemFree": 100}
if calls(p[2]) != ze:
    bad.append(f"after the replacement: {calls(p[2])} != {ze}")
if calls(p[0]).get("zeMemFree") != 10:
    bad.append(f"before: {calls(p[0])}")
n = " | ".join(d["notes"])
if "libze_loader.so.1 was replaced while tracing: the new file is traced too" not in n:
    bad.append("no note on the replaced library: " + n)
lost = {(r["function"], r["thread_ended"], r["in_flight"]) for r in d.get("never_returned", [])}
if lost != {("xptExitInside", 1, 0), ("xptHang", 0, 1)} or d.get("calls_thread_ended") != 1 \
   or d.get("calls_in_flight") != 1:
    bad.append(f"never returned: {d.get('never_returned')} ended {d.get('calls_thread_ended')} "
               f"in flight {d.get('calls_in_flight')}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then pass "api traces a library replaced while tracing, counts calls that never returned"
else fail "api misses: $(echo "$msg" | head -c 600) $(head -c 200 "$WORK/miss.err")"; fi
# the same in text: a note each
if start_tracer misst api --lib "$WORK/up/libze_loader.so.1:xptExitInside" --device /dev/null; then
	"$DRV" "$WORK/up/libze_loader.so.1" 1 1 --exit > /dev/null
	stop_tracer INT
fi
if grep -q '^note: 1 call never returned: the thread ended inside (exit or exec), not counted: xptExitInside 1$' \
	"$WORK/misst.out"; then pass "api text summary notes a call its process ended inside"
else fail "api text: no note on the call that never returned: $(grep note "$WORK/misst.out" | head -c 400)"; fi

# 5. Debian's loaders, no driver behind them: entry points traced, their codes counted
"$CLIENT" 0 > /dev/null 2> "$WORK/client.err"
if [ $? -eq 3 ]; then
	skip "api real-loaders: ocl-icd-libopencl1 or libze1 not installed (scripts/deps.sh): $(head -c 200 "$WORK/client.err")"
else
	if start_tracer real api -j; then
		"$CLIENT" 7 > "$WORK/client.out"
		stop_tracer INT
	fi
	if msg=$(python3 - "$WORK/real.out" "$WORK/client.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))
def code(v):
    return hex(v) if v >= 0x10000 else str(v)
bad = []
for fn, lib in (("clFinish", "libOpenCL.so.1"), ("clWaitForEvents", "libOpenCL.so.1"),
                ("zeCommandQueueSynchronize", "libze_loader.so.1")):
    r = [f for f in d["functions"] if f["pid"] == c["pid"] and f["function"] == fn]
    if len(r) != 1 or r[0]["calls"] != 7 or r[0]["lib"] != lib or \
       (c[fn] != 0 and r[0]["errors_by_return"] != {code(c[fn]): 7}):
        bad.append(f"{fn}: {r} (returned {c[fn]})")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then pass "api traces the real OpenCL and Level Zero loaders' entry points and counts their codes"
	else fail "api real loaders: $(echo "$msg" | head -c 500)"; fi
fi

# 6. Debian's HIP and HSA runtimes, no AMD GPU behind them: they answer with
# errors (hipErrorInvalidDevice, HSA_STATUS_ERROR_*), each call counted by value
if ! "$ROCM" hsa 0 > /dev/null 2> "$WORK/rocm.err" || ! "$ROCM" hip 0 > /dev/null 2>> "$WORK/rocm.err"; then
	skip "api rocm: libamdhip64-5 or libhsa-runtime64-1 not installed (scripts/deps.sh): $(head -c 200 "$WORK/rocm.err")"
	exit 0
fi
if start_tracer rocm api -j; then
	"$ROCM" hsa 9 > "$WORK/hsa.out"
	"$ROCM" hip 6 > "$WORK/hip.out"
	stop_tracer INT
fi
if msg=$(python3 - "$WORK/rocm.out" "$WORK/hsa.out" "$WORK/hip.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def code(v):
    return hex(v) if v >= 0x10000 else str(v)
def check(c, lib, n, want):
    got = {f["function"]: f for f in d["functions"] if f["pid"] == c["pid"] and f["lib"] == lib}
    if set(got) != set(want):
        bad.append(f"{lib}: functions {sorted(got)} != {sorted(want)}")
    for fn, calls in want.items():
        r = got.get(fn, {})
        errs = {code(c[fn]): calls} if c.get(fn, 0) != 0 else {}
        if r.get("calls") != calls or r.get("errors") != sum(errs.values()) or r.get("errors_by_return", {}) != errs:
            bad.append(f"{fn}: calls {r.get('calls')} errors {r.get('errors_by_return')}, want {calls} x {errs}")
hsa = json.load(open(sys.argv[2]))
hip = json.load(open(sys.argv[3]))
check(hsa, "libhsa-runtime64.so.1", 9, {"hsa_init": 1, "hsa_queue_create": 9,
      "hsa_amd_memory_pool_allocate": 9, "hsa_executable_freeze": 9})
check(hip, "libamdhip64.so.5", 6, {f: 6 for f in ("hipMalloc", "hipMemcpy", "hipLaunchKernel",
      "hipStreamSynchronize", "hipEventSynchronize", "hipDeviceSynchronize", "hipFree")})
# underneath, HIP tries to bring HSA up again in each of its calls
under = [f for f in d["functions"] if f["pid"] == hip["pid"] and f["lib"] == "libhsa-runtime64.so.1"]
if [(f["function"], f["calls"], f["errors"]) for f in under] != [("hsa_init", 42, 42)]:
    bad.append(f"HSA under HIP: {[(f['function'], f['calls'], f['errors']) for f in under]}")
if d["drops"]["total"] != 0:
    bad.append("drops")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then pass "api traces Debian's HIP and HSA runtimes' entry points and counts their codes"
else fail "api rocm: $(echo "$msg" | head -c 600)"; fi
