#!/usr/bin/env bash
# `xputrace doctor` on this machine: what it says must agree with what the
# machine shows by other means.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then skip "doctor: $XP is not built"; exit 0; fi
"$XP" doctor --bogus > /dev/null 2> "$WORK/bad.err"
if [ $? -eq 2 ] && [ "$(wc -l < "$WORK/bad.err")" -eq 1 ]; then pass "doctor rejects an unknown flag"
else fail "doctor rejects an unknown flag: $(cat "$WORK/bad.err")"; fi

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "doctor json agrees with the machine: $why"
	skip "doctor text: $why"
	exit 0
fi
if ! "$XP" doctor --json > "$WORK/d.json" 2> "$WORK/d.err"; then
	fail "doctor --json exits 0: $(cat "$WORK/d.err")"
	exit 0
fi
if msg=$(python3 - "$WORK/d.json" <<'PY'
import json, os, platform, sys
d = json.load(open(sys.argv[1]))
bad = []
def want(cond, what):
    if not cond:
        bad.append(what)
want(d["kernel"]["release"] == platform.release(), "kernel release")
want(d["btf"]["vmlinux"] == os.path.exists("/sys/kernel/btf/vmlinux"), "vmlinux BTF")
tf = d["tracefs"]
want(tf["available"] and os.path.isdir(tf["path"] + "/events"), "tracefs mounted and usable")
at = d["attach"]
for k in ("tracepoint", "tp_btf", "raw_tp", "kprobe", "kprobe.multi", "fentry", "uprobe"):
    want(k in at and isinstance(at[k]["ok"], bool), f"attach type {k} reported")
    want(at[k]["ok"] or at[k].get("reason"), f"attach type {k} has a reason when unavailable")
# kprobes work exactly when the kernel has the kprobe PMU
want(at["kprobe"]["ok"] == os.path.exists("/sys/bus/event_source/devices/kprobe"), "kprobe agrees with the kprobe PMU")
for g, n in d["event_groups"].items():
    path = f"{tf['path']}/events/{g}"
    real = len([e for e in os.listdir(path) if os.path.isdir(f"{path}/{e}")]) if os.path.isdir(path) else 0
    want(n == real, f"event group {g}: {n} != {real}")
caps = d["capabilities"]
want(caps["ioctl"]["available"] == (at["tp_btf"]["ok"] or at["raw_tp"]["ok"]), "ioctl capability follows its hooks")
want(caps["ioctl"]["in_this_build"], "ioctl is in this build")
want(caps["sched"]["available"] == (d["event_groups"]["gpu_scheduler"] > 0 and at["tracepoint"]["ok"]), "sched follows gpu_scheduler")
want(caps["api"]["available"] == at["uprobe"]["ok"], "api capability follows uprobe")
devs = open("/proc/devices").read().split("Block devices:")[0].split()
gpu = {n for n in devs if n in ("drm", "accel", "kfd") or n.startswith("nvidia")}
want({m["name"] for m in d["majors"]} == gpu, f"majors {d['majors']} != {gpu}")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then pass "doctor json agrees with the machine"
else fail "doctor json agrees with the machine: $msg"; fi

"$XP" doctor > "$WORK/d.txt" 2>&1
if grep -q "^Attach types" "$WORK/d.txt" && grep -q "^Capabilities" "$WORK/d.txt" &&
	grep -Eq "^  ioctl +(yes|no) " "$WORK/d.txt"; then
	pass "doctor text has every section"
else
	fail "doctor text: $(head -c 300 "$WORK/d.txt")"
fi
