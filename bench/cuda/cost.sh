#!/usr/bin/env bash
# On a GPU host: the cost per launch of a PyTorch loop of tiny kernels
# (torch_cost.py) in one session: alone, under torch.profiler, with
# libxputrace-cuda.so injected and no tracer, traced by `xputrace cuda`, and
# alone again (the machine's drift).
# Prints one JSON line per mode (three loops of N launches each), then
# what the tracer counted (kernels, joined to their launch call, launches).
#   bench/cuda/cost.sh [N]
set -u
cd "$(dirname "$0")/../.."
N=${1:-20000}
CUDA=${CUDA:-/usr/local/cuda}
export XPUTRACE_CUPTI=${XPUTRACE_CUPTI:-$CUDA/lib64/libcupti.so.13}
L=$(realpath build/libxputrace-cuda.so)
E=$(mktemp) J=$(mktemp)
trap 'rm -f "$E" "$J"' EXIT
python3 bench/cuda/torch_cost.py plain "$N"
python3 bench/cuda/torch_cost.py profile "$N"
CUDA_INJECTION64_PATH=$L python3 bench/cuda/torch_cost.py plain "$N" | sed 's/"plain"/"injected"/'
./xputrace cuda --lib "$L" -j > "$J" 2> "$E" &
T=$!
for _ in $(seq 1 200); do grep -q '^Tracing' "$E" && break; sleep 0.05; done
CUDA_INJECTION64_PATH=$L python3 bench/cuda/torch_cost.py plain "$N" | sed 's/"plain"/"traced"/'
kill -INT $T; wait $T
python3 bench/cuda/torch_cost.py plain "$N" | sed 's/"plain"/"plain again"/'
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print("traced: kernels", d["kernels"], "joined", d["joined"], "launches", d["launches"], "drops", d["drops"]["total"])' "$J"
