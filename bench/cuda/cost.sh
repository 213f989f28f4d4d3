#!/usr/bin/env bash
# On a GPU host: the cost per launch of a PyTorch loop of tiny kernels
# (torch_cost.py), in one session, ROUNDS times over, the modes interleaved
# so that the machine's drift falls on all of them: alone, under
# torch.profiler, with libxputrace-cuda.so injected and no tracer, and
# traced by one `xputrace cuda` attached all along. The untraced runs load
# a copy of the library (another file: the tracer's probes are not in it).
# PREV=path/to/another/build adds its copy, injected and untraced, as mode
# "prev". CPUS=LIST runs every process on those CPUs (taskset), away from
# the scheduler's moves, which differ from one process to the next by more
# than what is measured. One JSON line per process, then the medians per
# mode and what the tracer counted.
#   bench/cuda/cost.sh [N [ROUNDS]]
set -u
cd "$(dirname "$0")/../.."
N=${1:-20000} R=${2:-3}
CUDA=${CUDA:-/usr/local/cuda}
export XPUTRACE_CUPTI=${XPUTRACE_CUPTI:-$CUDA/lib64/libcupti.so.13}
L=$(realpath build/libxputrace-cuda.so)
PIN=${CPUS:+taskset -c $CPUS}
D=$(mktemp -d)
trap 'kill $T 2>/dev/null; rm -rf "$D"' EXIT
cp "$L" "$D/untraced.so"
modes="plain profile injected traced"
[ -n "${PREV:-}" ] && cp "$PREV" "$D/prev.so" && modes="$modes prev"
./xputrace cuda --lib "$L" -j > "$D/traced.json" 2> "$D/traced.err" &
T=$!
for _ in $(seq 1 200); do grep -q '^Tracing' "$D/traced.err" && break; sleep 0.05; done
for r in $(seq 1 "$R"); do
	for m in $modes; do
		case $m in
		plain) $PIN python3 bench/cuda/torch_cost.py plain "$N" ;;
		profile) $PIN python3 bench/cuda/torch_cost.py profile "$N" ;;
		injected) CUDA_INJECTION64_PATH=$D/untraced.so $PIN python3 bench/cuda/torch_cost.py plain "$N" ;;
		traced) CUDA_INJECTION64_PATH=$L $PIN python3 bench/cuda/torch_cost.py plain "$N" ;;
		prev) CUDA_INJECTION64_PATH=$D/prev.so $PIN python3 bench/cuda/torch_cost.py plain "$N" ;;
		esac | sed "s/\"mode\": \"[a-z]*\"/\"mode\": \"$m\", \"round\": $r/"
	done
done | tee "$D/runs.jsonl"
sleep 1
kill -INT $T; wait $T; T=
python3 - "$D/runs.jsonl" "$D/traced.json" <<'PY'
import json, statistics as st, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
med = {}
for r in runs:
    med.setdefault(r["mode"], []).append(st.median(r["us_per_launch"]))
base = st.median(med.get("plain", [0]))
for m, v in med.items():
    print("%-9s median %.3f us  (+%.3f)  per process: %s" % (m, st.median(v), st.median(v) - base,
                                                      " ".join("%.3f" % x for x in v)))
d = json.load(open(sys.argv[2]))
print("traced: kernels", d["kernels"], "joined", d["joined"], "launches", d["launches"],
      "cupti_dropped", d["cupti_dropped"], "drops", d["drops"]["total"])
PY
