#!/usr/bin/env bash
# On a GPU host: `serve` started before any process maps libxputrace-cuda.so
# (no --lib: found in the mappings), `top` and `cuda` beside it, then two
# PyTorch processes (bench/cuda/torch_compare.py plain) in turn; into OUTDIR:
# serve's scrape (per process), top's text, cuda's JSON summary.
#   bench/cuda/serve.sh OUTDIR [ROUNDS]
set -u
cd "$(dirname "$0")/../.."
OUT=$1 R=${2:-3000}; mkdir -p "$OUT"
CUDA=${CUDA:-/usr/local/cuda}
export XPUTRACE_CUPTI=${XPUTRACE_CUPTI:-$CUDA/lib64/libcupti.so.13}
L=$(realpath build/libxputrace-cuda.so)
ldd ./xputrace | grep 'not found' > "$OUT/ldd.txt"
./xputrace serve --per-process --listen 127.0.0.1:0 > /dev/null 2> "$OUT/serve.err" &
S=$!
for _ in $(seq 1 200); do grep -q '^Tracing' "$OUT/serve.err" && break; sleep 0.05; done
ADDR=$(grep -o 'http://[0-9.]*:[0-9]*' "$OUT/serve.err" | head -1)
./xputrace cuda --lib "$L" -j > "$OUT/cuda.json" 2> "$OUT/cuda.err" &
C=$!
./xputrace top --lib "$L" -i 1 > "$OUT/top.txt" 2> "$OUT/top.err" &
T=$!
for _ in $(seq 1 200); do grep -q '^Tracing' "$OUT/cuda.err" && grep -q '^Tracing' "$OUT/top.err" && break; sleep 0.05; done
for p in a b; do
	CUDA_INJECTION64_PATH=$L timeout 120 python3 bench/cuda/torch_compare.py plain "$R" > "$OUT/torch_$p.json" 2>&1
done
sleep 2
python3 -c 'import sys, urllib.request as u; print(u.urlopen(sys.argv[1] + "/metrics").read().decode())' "$ADDR" > "$OUT/metrics.txt"
kill -INT $C $T; wait $C $T
kill -TERM $S; wait $S; echo "serve status $?" >> "$OUT/serve.err"
echo done > "$OUT/done"
