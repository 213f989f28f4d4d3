#!/usr/bin/env bash
# simulate's drm_sched policies on recordings of the real scheduler
# (tests/golden/data/drm/deep_{fifo,fair,rr}.xpt: the lab's drm_policies
# scenario on Linux 7.3, the mock GPU with gpu_sched.sched_policy 1, 2 and 0;
# two clients keep the ring deep-queued with 40 jobs of 8 ms each, the second
# at low priority):
#   - each recording replayed under the policy it was made under gives the
#     recorded response times and GPU shares (within 1 %, 0.5 points);
#   - each recording simulated under another policy predicts that policy's
#     real run (its recording): each client's p50, p99 and GPU share within
#     a third of the two real runs' difference, where the runs differ by 10 %
#     or more (10 points of the GPU for a share).
# docs/simulate.md has the table.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "simulate drm: $XP is not built"
	exit 0
fi
if ! command -v python3 > /dev/null; then
	skip "simulate drm: python3 is not installed (it reads the JSON)"
	exit 0
fi
D=tests/golden/data
# the low-priority client of each recording (the one the scenario started second)
declare -A LOW=([fifo]=138 [fair]=161 [rr]=184)
for p in fifo fair rr; do
	"$XP" simulate "$D/drm/deep_${p}.xpt" --compare drm-fifo,drm-rr,drm-fair --drm-prio "${LOW[$p]}=low" --json \
		> "$WORK/$p.json" 2> "$WORK/$p.err" ||
		{ fail "simulate drm: drm/deep_${p}.xpt: $(head -c 300 "$WORK/$p.err")"; exit 0; }
done

python3 - "$WORK" "${LOW[fifo]}" "${LOW[fair]}" "${LOW[rr]}" << 'EOF'
import json, sys

w = sys.argv[1]
low = dict(zip(("fifo", "fair", "rr"), map(int, sys.argv[2:5])))
doc = {}
for p in low:
    with open(f"{w}/{p}.json") as f:
        doc[p] = json.load(f)

def val(rec, policy, role, metric):
    r = next(r for r in doc[rec]["results"] if r["policy"] == policy)
    pids = sorted(t["pid"] for t in doc[rec]["tasks"])
    pid = low[rec] if role == "low" else next(p for p in pids if p != low[rec])
    t = next(t for t in r["tasks"] if t["name"].endswith(f"/{pid}"))
    return t[metric]

def check(label, ok, why):
    print(("PASS " if ok else "FAIL ") + "simulate drm: " + label + ("" if ok else ": " + why))

metrics = ("p50_ns", "p99_ns", "share_pct")
for p in low:
    for role in ("normal", "low"):
        for m in metrics:
            a, z = val(p, "recorded", role, m), val(p, "drm-" + p, role, m)
            ok = abs(z - a) <= (0.5 if m == "share_pct" else 0.01 * a)
            check(f"{p} replayed as drm-{p}: {role} {m} {z:.6g} as recorded {a:.6g}", ok, "off")
judged = 0
for r in low:
    for s in low:
        if r == s:
            continue
        for role in ("normal", "low"):
            for m in metrics:
                a, b, z = val(r, "recorded", role, m), val(s, "recorded", role, m), val(r, "drm-" + s, role, m)
                diff, err = abs(a - b), abs(z - b)
                if diff < (10 if m == "share_pct" else 0.1 * b):
                    continue
                judged += 1
                check(f"{r} -> drm-{s}: {role} {m} predicted {z:.6g}, real {b:.6g} (from {a:.6g})",
                      err <= diff / 3, f"error {err:.6g} over a third of {diff:.6g}")
check(f"{judged} cross-policy predictions judged (the real runs differ)", judged >= 12, "too few")
EOF
