#!/usr/bin/env bash
# On a GPU host (CUDA 13 toolkit, root): libxputrace-cuda.so and `xputrace
# cuda` on a real GPU. Builds launch.cu with nvcc, runs it 3 times plain, 3
# times with the library injected and no tracer, 3 times traced, and prints
# the launch loop's cost per launch of each and the traced summary, whose
# counts must be exact: 3 x (1000 spin + 20001 empty) kernels, 30 copies.
#   bench/cuda/check.sh [OUTDIR]    (CUPTI: XPUTRACE_CUPTI, else the toolkit's)
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-$(mktemp -d)}; mkdir -p "$OUT"
CUDA=${CUDA:-/usr/local/cuda}
export XPUTRACE_CUPTI=${XPUTRACE_CUPTI:-$CUDA/lib64/libcupti.so.13}
L=$(realpath build/libxputrace-cuda.so)
"$CUDA/bin/nvcc" -O2 -cudart static -o "$OUT/launch" bench/cuda/launch.cu
A=("$OUT/launch" 1000 2 20000 10)
for r in 1 2 3; do
	"${A[@]}" > "$OUT/plain.$r.txt"
	CUDA_INJECTION64_PATH=$L "${A[@]}" > "$OUT/injected.$r.txt"
done
./xputrace cuda --lib "$L" -j > "$OUT/traced.json" 2> "$OUT/traced.err" &
T=$!
for _ in $(seq 1 200); do grep -q '^Tracing' "$OUT/traced.err" && break; sleep 0.05; done
for r in 1 2 3; do CUDA_INJECTION64_PATH=$L "${A[@]}" > "$OUT/traced.$r.txt"; done
sleep 1
kill -INT $T
wait $T || true
grep -H "per launch" "$OUT"/plain.*.txt "$OUT"/injected.*.txt "$OUT"/traced.*.txt
python3 - "$OUT/traced.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("kernels", d["kernels"], "(want 63003) joined", d["joined"], "launches", d["launches"],
      "copies", d["copies"], "(want 30) cupti_dropped", d["cupti_dropped"], "drops", d["drops"]["total"])
for k in d["by_kernel"]:
    print(k["name"], k["pid"], k["launches"], "gpu p50", k["gpu_ns"]["p50"], "sum", k["gpu_ns"]["sum"],
          "launch->start p50", k["launch_to_start_ns"].get("p50"))
for p in d["by_process"]:
    print("pid", p["pid"], "device", p["device"], "busy_ns", p["busy_ns"], "kernels", p["kernels"])
PY
