#!/usr/bin/env bash
# On a GPU host: a tracer that comes and goes while a PyTorch process runs
# (bench/cuda/live.py, 100 tiny kernels a second for 9 s). `xputrace cuda
# --stream` attaches 2 s in and leaves at 6 s; prints, each second of the
# tracer's life, how many of the process's kernels it had received and how
# many of them were joined to their launch call. The library turns
# collection on when the tracer attaches and hands records over each
# second: the counts rise while the process runs, and stop with the tracer.
#   bench/cuda/live.sh
set -u
cd "$(dirname "$0")/../.."
CUDA=${CUDA:-/usr/local/cuda}
export XPUTRACE_CUPTI=${XPUTRACE_CUPTI:-$CUDA/lib64/libcupti.so.13}
L=$(realpath "${LIB:-build/libxputrace-cuda.so}")
D=$(mktemp -d)
trap 'kill $P $T 2>/dev/null; rm -rf "$D"' EXIT
CUDA_INJECTION64_PATH=$L python3 bench/cuda/live.py 9 > "$D/app.txt" 2>&1 &
P=$!
for _ in $(seq 1 300); do grep -q ready "$D/app.txt" && break; sleep 0.05; done
sleep 2
./xputrace cuda --lib "$L" -p $P --stream -j > "$D/stream.jsonl" 2> "$D/err" &
T=$!
for s in 1 2 3 4; do
	sleep 1
	python3 - "$D/stream.jsonl" "$s" <<'PY'
import json, sys
k = [o for o in map(lambda l: json.loads(l) if l.startswith("{") else {}, open(sys.argv[1])) if o.get("what") == "kernel"]
print("tracer +%s s: kernels %d joined %d" % (sys.argv[2], len(k), sum("launch_to_start_ns" in o for o in k)))
PY
done
kill -INT $T; wait $T; T=
wait $P
cat "$D/app.txt"
grep -c '"kernel"' "$D/stream.jsonl" | sed 's/^/kernel lines in the stream: /'
