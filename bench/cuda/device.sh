#!/usr/bin/env bash
# On a GPU host: bench/cuda/check.sh (exact counts, cost per launch), then the
# same PyTorch workload under torch.profiler and under `xputrace cuda` (two
# processes at once), into OUTDIR. Needs ./xputrace and build/libxputrace-cuda.so.
#   bench/cuda/device.sh OUTDIR
set -u
cd "$(dirname "$0")/../.."
OUT=$1; mkdir -p "$OUT"
CUDA=${CUDA:-/usr/local/cuda}
export XPUTRACE_CUPTI=${XPUTRACE_CUPTI:-$CUDA/lib64/libcupti.so.13}
L=$(realpath build/libxputrace-cuda.so)
nvidia-smi -L > "$OUT/gpu.txt" 2>&1; uname -r >> "$OUT/gpu.txt"
timeout 200 bash bench/cuda/check.sh "$OUT" > "$OUT/check.txt" 2>&1; echo "check rc $?" >> "$OUT/check.txt"
R=3000
timeout 100 python3 bench/cuda/torch_compare.py profile $R > "$OUT/torch_profile.json" 2> "$OUT/torch_profile.err"
./xputrace cuda --lib "$L" -j > "$OUT/torch_traced.json" 2> "$OUT/torch_traced.err" &
T=$!
for _ in $(seq 1 200); do grep -q '^Tracing' "$OUT/torch_traced.err" && break; sleep 0.05; done
CUDA_INJECTION64_PATH=$L timeout 100 python3 bench/cuda/torch_compare.py plain $R > "$OUT/torch_a.json" 2>&1 &
A=$!
CUDA_INJECTION64_PATH=$L timeout 100 python3 bench/cuda/torch_compare.py plain $R > "$OUT/torch_b.json" 2>&1
wait $A
sleep 1
kill -INT $T; wait $T
echo done > "$OUT/done"
