#!/usr/bin/env bash
# Soak: SOAK_SECONDS (600) of process churn (short-lived processes, a few
# ioctls each) plus a steady ioctl flood on /dev/null, traced at once by
# `xputrace ioctl` in summary mode, in --stream mode and by `record`; RSS of
# and drops (their kernel drops maps, read with bpftool) of each sampled every
# second, totals from their final summaries, then the peak RSS of `report` on
# the recorded file. Writes bench/RESULTS-soak.md.
# Not a test: the figures are what to compare between builds.
set -eu
cd "$(dirname "$0")/.."
T=${SOAK_SECONDS:-600}
XP=./xputrace
DRV=build/tests/e2e/ioctl_driver
OUT=bench/RESULTS-soak.md
[ "$(id -u)" -eq 0 ] || { echo "soak: needs root" >&2; exit 1; }
[ -x "$XP" ] && [ -x "$DRV" ] || { echo "soak: run 'make xputrace helpers' first" >&2; exit 1; }
command -v bpftool > /dev/null || { echo "soak: bpftool is needed to sample drops" >&2; exit 1; }
tmp=$(mktemp -d)
# the samples survive a failed summary: bench/soak-samples.txt
trap 'kill $(jobs -p) 2>/dev/null || true; cp "$tmp/rss.txt" bench/soak-samples.txt 2>/dev/null || true; rm -rf "$tmp"' EXIT

"$XP" ioctl --device /dev/null -j > "$tmp/sum.json" 2> "$tmp/sum.err" & S=$!
"$XP" ioctl --device /dev/null --stream -j > "$tmp/stream.json" 2> "$tmp/stream.err" & M=$!
"$XP" record -o "$tmp/soak.xpt" --device /dev/null 2> "$tmp/rec.err" & R=$!
sleep 2
# churn: new processes as fast as one core forks them, 5 ioctls each
( n=0; while :; do "$DRV" --self 5 > /dev/null; n=$((n + 1)); echo $n > "$tmp/churn.n"; done ) & C=$!
# flood: about 5,000 calls a second from one long-lived process
( while :; do "$DRV" --self 500 > /dev/null; sleep 0.1; done ) & F=$!
# One sampler for RSS and drops: a shell loop would start a bpftool and a
# parser per tracer per second, load that the tracers would then compete with.
python3 - "$T" "$tmp" $S $M $R > "$tmp/rss.txt" <<'PY'
import json, os, subprocess, sys, time
T, tmp, pids = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
def maps_named(pid, name):
    # the tracer's own maps: the map ids its descriptors hold (fdinfo), by name
    ids = []
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            info = open(f"/proc/{pid}/fdinfo/{fd}").read()
        except OSError:
            continue
        for line in info.splitlines():
            if line.startswith("map_id:"):
                mid = line.split()[1]
                m = json.loads(subprocess.run(["bpftool", "map", "show", "id", mid, "-j"],
                                              capture_output=True, text=True).stdout or "{}")
                if m.get("name") == name:
                    ids.append(mid)
    return ids
def drops(ids):
    if not ids:
        return "?"	# its drops map was not found: say so rather than 0
    n = 0
    for mid in ids:
        out = subprocess.run(["bpftool", "map", "dump", "id", mid, "-j"], capture_output=True, text=True).stdout
        for e in json.loads(out or "[]"):
            n += sum(v["value"] for v in e["formatted"]["values"])
    return n
def rss(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0
ids = [maps_named(p, "drops") for p in pids]
print("t summary_kb stream_kb record_kb processes summary_drops stream_drops record_drops", flush=True)
start, churn = time.monotonic(), 0
for t in range(1, T + 1):
    time.sleep(max(0, start + t - time.monotonic()))
    try:
        churn = int(open(f"{tmp}/churn.n").read())
    except (OSError, ValueError):
        pass	# read while the churn loop rewrote it: the last count stands
    print(t, *[rss(p) for p in pids], churn, *[drops(i) for i in ids], flush=True)
PY
kill $C $F 2>/dev/null; wait $C $F 2>/dev/null || true
kill -INT $S $M $R; wait $S $M $R || true
/usr/bin/time -f "%M" -o "$tmp/report.rss" "$XP" report "$tmp/soak.xpt" --json > "$tmp/report.json" 2> /dev/null || true
python3 - "$tmp" "$T" "$OUT" <<'PY'
import json, sys, os
tmp, T, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [l.split() for l in open(f"{tmp}/rss.txt").read().splitlines()[1:]]
def col(i): return [int(r[i]) for r in rows if len(r) > i and r[i].isdigit()]
def summ(path):
    # the summary is the last line (--stream puts one object per call before it)
    last = ""
    with open(path) as f:
        for l in f:
            if l.strip():
                last = l
    try:
        d = json.loads(last)
    except ValueError:
        return {}
    return d if "processes" in d else {}
sm, st, rp = summ(f"{tmp}/sum.json"), summ(f"{tmp}/stream.json"), summ(f"{tmp}/report.json")
def calls(d): return sum(i["calls"] for p in d.get("processes", []) for i in p["ioctls"])
procs = max(col(4) or [0])
rep_rss = open(f"{tmp}/report.rss").read().strip() or "0"
size = os.path.getsize(f"{tmp}/soak.xpt") if os.path.exists(f"{tmp}/soak.xpt") else 0
with open(out, "w") as f:
    f.write(f"""# Soak: process churn plus an ioctl flood

`bench/soak.sh` (SOAK_SECONDS={T}): short-lived processes doing 5 ioctls each on
/dev/null, one after another, plus about 5,000 calls a second in bursts of 500,
traced at once by `ioctl` (summary), `ioctl --stream -j` and `record`;
RSS and drops (the kernel's drops maps) sampled every second. Load average at the end: {open('/proc/loadavg').read().split()[0]}.

| mode | peak RSS | RSS at 10% of the run | RSS at the end | calls | drops | most drops in a second | (other) calls |
|---|---|---|---|---|---|---|---|
""")
    for name, i, d in (("summary", 1, sm), ("--stream", 2, st), ("record", 3, None)):
        c = col(i)
        if not c:
            continue
        early = c[max(0, len(c) // 10 - 1)]
        dd = d if d is not None else rp
        # the drops maps are cumulative: a second's drops are the step between samples
        dr = col(i + 4)
        step = max([b - a for a, b in zip([0] + dr, dr)] or [0])
        f.write(f"| {name} | {max(c)/1024:.1f} MB | {early/1024:.1f} MB | {c[-1]/1024:.1f} MB | "
                f"{calls(dd)} | {dd.get('drops', {}).get('total', '?')} | {step} | {dd.get('folded_calls', 0)} |\n")
    f.write(f"| report of the {size/1e6:.0f} MB file | {int(rep_rss)/1024:.1f} MB | | | {calls(rp)} | "
            f"{rp.get('drops', {}).get('total', '?')} | | {rp.get('folded_calls', 0)} |\n")
    f.write(f"\nProcesses started by the churn: {procs}. The target is RSS under 32 MB in every mode;\n"
            "process rows past --max-keys (4096) are added up in (other) rows, so totals stay exact.\n"
            "The three tracers are stopped together; the few hundred calls between their stops are\n"
            "why their totals differ slightly.\n")
print(open(out).read())
PY
