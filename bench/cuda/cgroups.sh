#!/usr/bin/env bash
# On a GPU host: two PyTorch processes at once (torch_compare.py plain, RA and
# RB rounds of a product and an add) in two cgroups made here, with `serve
# --lib` (as a node names its copy) and `cuda --stream -j`
# beside them. Prints per cgroup: the kernels serve counted (want 2 x rounds
# + 2, randn's), its GPU busy seconds (source="cupti"), and the union of the
# intervals of that process's kernels from the stream (per device, added).
#   bench/cuda/cgroups.sh [RA RB]
set -u
cd "$(dirname "$0")/../.."
RA=${1:-2000} RB=${2:-1000}
CUDA=${CUDA:-/usr/local/cuda}
export XPUTRACE_CUPTI=${XPUTRACE_CUPTI:-$CUDA/lib64/libcupti.so.13}
L=$(realpath build/libxputrace-cuda.so)
RUN=${RUN:-python3 bench/cuda/torch_compare.py plain}	# prints {"pid": ...}
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
W=$(mktemp -d)
trap 'rmdir "$CG/xp-train-a" "$CG/xp-train-b" 2>/dev/null' EXIT
mkdir "$CG/xp-train-a" "$CG/xp-train-b" || exit 1
in_cg() { local d=$1; shift; sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$d" "$@"; }
./xputrace serve --listen 127.0.0.1:0 --lib "$L" > /dev/null 2> "$W/serve.err" &
S=$!
./xputrace cuda --lib "$L" --stream -j > "$W/stream.json" 2> "$W/cuda.err" &
C=$!
for _ in $(seq 1 200); do grep -q '^Tracing' "$W/serve.err" && grep -q '^Tracing' "$W/cuda.err" && break; sleep 0.05; done
ADDR=$(grep -o 'http://[0-9.]*:[0-9]*' "$W/serve.err" | head -1)
CUDA_INJECTION64_PATH=$L in_cg "$CG/xp-train-a" $RUN "$RA" > "$W/a.json" &
A=$!
CUDA_INJECTION64_PATH=$L in_cg "$CG/xp-train-b" $RUN "$RB" > "$W/b.json"
wait $A
sleep 2
python3 -c 'import sys, urllib.request as u; print(u.urlopen(sys.argv[1] + "/metrics").read().decode())' "$ADDR" > "$W/metrics.txt"
kill -INT $C; wait $C
kill -TERM $S; wait $S
python3 - "$W" "$RA" "$RB" <<'PY'
import json, re, sys
w, ra, rb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pids = {json.loads(open(w + "/a.json").readline())["pid"]: ("xp-train-a", ra), json.loads(open(w + "/b.json").readline())["pid"]: ("xp-train-b", rb)}
iv = {p: {} for p in pids}
for line in open(w + "/stream.json"):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if isinstance(o, dict) and o.get("what") == "kernel" and o.get("pid") in iv:
        iv[o["pid"]].setdefault(o["device"], []).append((o["t_ns"], o["t_ns"] + o["dur_ns"]))
def union(v):
    tot, end = 0, None
    for s, e in sorted(v):
        if end is None or s > end:
            tot += e - s; end = e
        elif e > end:
            tot += e - end; end = e
    return tot
metrics = open(w + "/metrics.txt").read().splitlines()
def metric(name, cg, label=""):
    return sum(float(l.rsplit(" ", 1)[1]) for l in metrics
               if l.startswith(name + "{") and re.search('cgroup="[^"]*/%s"' % cg, l) and label in l)
for p, (cg, r) in pids.items():
    print("%s pid %d rounds %d: kernels in the stream %d (want %d), serve %g; busy serve %.6f s, union of the stream's kernels %.6f s"
          % (cg, p, r, sum(map(len, iv[p].values())), 2 * r + 2, metric("xputrace_cuda_kernels_total", cg),
             metric("xputrace_gpu_busy_seconds_total", cg, 'source="cupti"'), sum(map(union, iv[p].values())) / 1e9))
print("\n".join(l for l in metrics if "xp-train" in l and ("gpu_busy" in l or "cuda_kernels" in l)))
PY
