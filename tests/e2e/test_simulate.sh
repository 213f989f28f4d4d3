#!/usr/bin/env bash
# simulate and analyze on the synthetic TimeGraph recordings (tests/golden/data/gen/
# tg_{2,4,8}ms.xpt: a periodic high-priority "frame" task, 2 ms every 16 ms,
# against a "greedy" task keeping two jobs of 2, 4 or 8 ms queued, recorded
# under FIFO). The paper's qualitative results must hold:
#   - FIFO: frame's worst response time grows with the greedy job size;
#   - PRT: it stays under frame's own cost plus one greedy job (plus the
#     scheduler's reaction to the completion);
#   - HT: more throughput than PRT, with more variance for frame;
#   - AE: fewer reservation overruns than PE;
# and the FIFO replay reproduces the recording's response times (median
# within 10 %), analyze blames frame's waits on greedy and lists every job.
# The exact outputs are golden cases (tests/golden/cases.txt); this checks
# the relations, so it still holds when the fixture's numbers change.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "simulate: $XP is not built"
	exit 0
fi
if ! command -v python3 > /dev/null; then
	skip "simulate: python3 is not installed (it reads the JSON)"
	exit 0
fi
D=tests/golden/data/gen
for g in 2 4 8; do
	if [ ! -r "$D/tg_${g}ms.xpt" ]; then
		skip "simulate: $D/tg_${g}ms.xpt is missing (tests/golden/regen.sh --fixtures)"
		exit 0
	fi
	"$XP" simulate "$D/tg_${g}ms.xpt" --compare fifo,prt,ht --prio frame=10 --json > "$WORK/cmp$g.json" 2> "$WORK/cmp$g.err" ||
		{ fail "simulate: tg_${g}ms.xpt --compare: $(head -c 300 "$WORK/cmp$g.err")"; exit 0; }
done
for e in pe ae; do
	"$XP" simulate "$D/tg_4ms.xpt" --policy prt --prio frame=10 --reserve greedy=12/16 --enforce "$e" --json \
		> "$WORK/$e.json" 2> "$WORK/$e.err" || { fail "simulate: --enforce $e: $(head -c 300 "$WORK/$e.err")"; exit 0; }
done
"$XP" analyze "$D/tg_4ms.xpt" --window 0.1 --prio frame=10 --json > "$WORK/an.json" 2> "$WORK/an.err" ||
	{ fail "analyze: tg_4ms.xpt: $(head -c 300 "$WORK/an.err")"; exit 0; }

python3 - "$WORK" << 'EOF'
import json, sys

w = sys.argv[1]
def load(n):
    with open(f"{w}/{n}.json") as f:
        return json.load(f)

def res(doc, policy):
    return next(r for r in doc["results"] if r["policy"] == policy)

def task(r, name):
    return next(t for t in r["tasks"] if t["name"].startswith(name + "/"))

def check(label, ok, why):
    print(("PASS " if ok else "FAIL ") + "simulate: " + label + ("" if ok else ": " + why))

cmp = {g: load(f"cmp{g}") for g in (2, 4, 8)}
ms = lambda ns: f"{ns / 1e6:.3f} ms"

fifo = [task(res(cmp[g], "fifo"), "frame")["max_ns"] for g in (2, 4, 8)]
check("FIFO: frame's worst response grows with the greedy job (2, 4, 8 ms): " + ", ".join(map(ms, fifo)),
      fifo[0] < fifo[1] < fifo[2], "not increasing")

bad = []
for g in (2, 4, 8):
    d = cmp[g]
    prt = res(d, "prt")
    bound = task(prt, "frame")["max_cost_ns"] + task(prt, "greedy")["max_cost_ns"] + d["overhead_ns"]
    if task(prt, "frame")["max_ns"] > bound:
        bad.append(f"{g} ms: {ms(task(prt, 'frame')['max_ns'])} > {ms(bound)}")
    if not task(prt, "frame")["max_ns"] < task(res(d, "fifo"), "frame")["max_ns"]:
        bad.append(f"{g} ms: no better than FIFO")
check("PRT: frame's worst response under its own cost + one greedy job + the reaction, below FIFO's",
      not bad, "; ".join(bad))

bad = []
for g in (2, 4, 8):
    ht, prt = res(cmp[g], "ht"), res(cmp[g], "prt")
    if not ht["all"]["jobs_per_s"] > prt["all"]["jobs_per_s"]:
        bad.append(f"{g} ms: throughput HT {ht['all']['jobs_per_s']:.1f} <= PRT {prt['all']['jobs_per_s']:.1f} jobs/s")
    if not task(ht, "frame")["p99_ns"] > task(prt, "frame")["p99_ns"]:
        bad.append(f"{g} ms: frame p99 HT {ms(task(ht, 'frame')['p99_ns'])} <= PRT")
check("HT: more throughput than PRT, frame's response more spread", not bad, "; ".join(bad))

pe, ae = task(res(load("pe"), "prt"), "greedy"), task(res(load("ae"), "prt"), "greedy")
check(f"reservation greedy=12/16: AE {ae['overruns']} overruns < PE {pe['overruns']}",
      ae["overruns"] < pe["overruns"] and pe["overruns"] > 0, "AE does not overrun less")

bad = []
for g in (2, 4, 8):
    for name in ("frame", "greedy"):
        rec, sim = task(res(cmp[g], "recorded"), name)["p50_ns"], task(res(cmp[g], "fifo"), name)["p50_ns"]
        if abs(sim - rec) > 0.1 * rec:
            bad.append(f"{g} ms {name}: {ms(sim)} vs {ms(rec)}")
check("the FIFO replay reproduces the recorded response times (median within 10 %)", not bad, "; ".join(bad))

an = load("an")
frame_waits = [p for p in an["blame"] if p["waiter"].startswith("frame/")]
top = max(frame_waits, key=lambda p: p["ns"]) if frame_waits else None
check("analyze: frame's waits are blamed on greedy", bool(top) and top["holder"].startswith("greedy/"),
      f"top holder {top and top['holder']}")
check("analyze: a wait per job, the inversions known with --prio",
      len(an["job_waits"]) == an["jobs"] and an["inversions"]["known"]
      and any(p["high"].startswith("frame/") for p in an["inversions"]["pairs"]),
      f"{len(an['job_waits'])} waits for {an['jobs']} jobs, inversions {an['inversions']}")
EOF

"$XP" analyze "$D/tg_4ms.xpt" > "$WORK/an.txt" 2>&1
if grep -q "none can be known" "$WORK/an.txt"; then
	pass "analyze: without --prio, says no inversion can be known"
else
	fail "analyze: without --prio: $(grep -i inversion "$WORK/an.txt" | head -c 200)"
fi

one_line "simulate: a missing file: one line, exit 1" 1 "cannot open" simulate "$WORK/nonexistent.xpt" --policy fifo
one_line "simulate: a file without sched records: one line, exit 1" 1 "has no sched capture" simulate "$D/ioctl.xpt" --policy fifo
one_line "analyze: a corrupt file: one line, exit 1" 1 "corrupt" analyze "$D/all_flip.xpt"
one_line "simulate: no policy: one line, exit 2" 2 "which policy" simulate "$D/tg_4ms.xpt"

# --perfetto: the schedules and the blame arrows follow the trace-event format's rules
for v in "simulate $D/tg_4ms.xpt --compare fifo,prt,ht --prio frame=10" "analyze $D/tg_4ms.xpt"; do
	# shellcheck disable=SC2086 # the arguments are words
	if ! "$XP" $v --perfetto "$WORK/p.json" > /dev/null 2> "$WORK/p.err"; then
		fail "${v%% *}: --perfetto: $(head -c 300 "$WORK/p.err")"
	elif python3 tests/e2e/check_perfetto.py "$WORK/p.json" > "$WORK/p.chk" 2>&1 &&
		{ [ "${v%% *}" = simulate ] || grep -q '"name":"blame"' "$WORK/p.json"; }; then
		pass "${v%% *}: --perfetto writes valid trace events$([ "${v%% *}" = analyze ] && echo ', blame as flows')"
	else
		fail "${v%% *}: --perfetto: $(head -c 300 "$WORK/p.chk")"
	fi
done

# --format proto: Perfetto's protobuf of the same schedules, with every track,
# slice, span and flow of the JSON (check_perfetto_pb.py); SKIP without protoc
for f in tg_4ms sched_new; do
	v="simulate $D/$f.xpt --compare fifo,prt,ht"
	if ! command -v protoc > /dev/null; then
		skip "simulate: --format proto: protoc is missing (Debian: protobuf-compiler)"
		break
	fi
	# shellcheck disable=SC2086 # the arguments are words
	if ! "$XP" $v --perfetto "$WORK/s.json" > /dev/null 2> "$WORK/s.err" ||
		! "$XP" $v --perfetto "$WORK/s.pftrace" --format proto > /dev/null 2>> "$WORK/s.err"; then
		fail "simulate $f: --format proto: $(head -c 300 "$WORK/s.err")"
	elif msg=$(python3 tests/e2e/check_perfetto_pb.py "$WORK/s.pftrace" "$WORK/s.json" -v 2>&1); then
		pass "simulate $f: --format proto agrees with the JSON: ${msg##*$'\n'}"
	else
		fail "simulate $f: --format proto: $(printf '%s' "$msg" | head -5 | tr '\n' ';')"
	fi
done
one_line "simulate: an unknown --format: one line, exit 2" 2 "--format wants json or proto" \
	simulate "$D/tg_4ms.xpt" --policy fifo --perfetto "$WORK/x" --format xml
