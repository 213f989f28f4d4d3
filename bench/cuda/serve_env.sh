#!/usr/bin/env bash
# On a GPU host: `serve` with no --lib, started before a PyTorch process
# (bench/cuda/live.py: 100 tiny kernels a second for 8 s) whose
# CUDA_INJECTION64_PATH names the library. Prints serve's note on how it
# found the file and its kernel count, busy seconds (source="cupti") for
# the process (with its comm label) at 2, 4 and 6 s while it runs, and
# after it has ended.
#   bench/cuda/serve_env.sh
set -u
cd "$(dirname "$0")/../.."
CUDA=${CUDA:-/usr/local/cuda}
export XPUTRACE_CUPTI=${XPUTRACE_CUPTI:-$CUDA/lib64/libcupti.so.13}
L=$(realpath build/libxputrace-cuda.so)
D=$(mktemp -d)
trap 'kill $S $P 2>/dev/null; rm -rf "$D"' EXIT
./xputrace serve --per-process --listen 127.0.0.1:0 > /dev/null 2> "$D/serve.err" &
S=$!
for _ in $(seq 1 200); do grep -q '^Tracing' "$D/serve.err" && break; sleep 0.05; done
ADDR=$(grep -o 'http://[0-9.]*:[0-9]*' "$D/serve.err" | head -1)
CUDA_INJECTION64_PATH=$L python3 bench/cuda/live.py 8 > "$D/app.txt" 2>&1 &
P=$!
scrape() {
	python3 - "$ADDR" "$P" "$1" <<'PY'
import re, sys, urllib.request as u
m = u.urlopen(sys.argv[1] + "/metrics").read().decode().splitlines()
def val(name):
    return sum(float(l.rsplit(" ", 1)[1]) for l in m if l.startswith(name + "{") and 'pid="%s"' % sys.argv[2] in l
               and ("gpu_busy" not in name or 'source="cupti"' in l))
comms = sorted(set(re.findall('comm="([^"]*)"', "\n".join(l for l in m if 'pid="%s"' % sys.argv[2] in l and "cuda" in l))))
print("%s: kernels %d busy %.6f s comm %s" % (sys.argv[3], val("xputrace_cuda_kernels_total"),
                                             val("xputrace_gpu_busy_seconds_total"), ",".join(comms)))
PY
}
for _ in $(seq 1 300); do grep -q ready "$D/app.txt" && break; sleep 0.05; done
for t in 2 4 6; do sleep 2; scrape "ready +$t s"; done
wait $P
sleep 2
scrape "after exit"
tail -1 "$D/app.txt"
grep found "$D/serve.err"
kill -TERM $S; wait $S; S=
