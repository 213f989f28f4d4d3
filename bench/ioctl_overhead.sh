#!/usr/bin/env bash
# Cost added per ioctl by `xputrace ioctl` (summary and --stream), by the
# equivalent bpftrace program, and by nothing, measured in one run and written
# to bench/RESULTS-ioctl.md. Not a test: figures vary with the machine; the
# ratios against the baseline in the same run are what to compare.
#   bench/ioctl_overhead.sh [CALLS_PER_ROUND] [ROUNDS]
set -eu
cd "$(dirname "$0")/.."
N=${1:-1000000}
R=${2:-7}
XP=./xputrace
LOOP=build/bench/ioctl_loop
OUT=bench/RESULTS-ioctl.md
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root" >&2; exit 1; }
[ -x "$XP" ] && [ -x "$LOOP" ] || { echo "bench: run 'make xputrace helpers' first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

# /dev/null's kernel dev_t (major 1, minor 3) for the bpftrace filter
NULLDEV=$(( (1 << 20) | 3 ))
# The same work as `xputrace ioctl` summary mode: calls on one device node,
# latency histogram per process and command, errors per errno.
cat > "$tmp/ioctl.bt" <<BT
tracepoint:syscalls:sys_enter_ioctl
/ ((struct file *)*(curtask->files->fdt->fd + args->fd))->f_inode->i_rdev == $NULLDEV /
{ @start[tid] = nsecs; @cmd[tid] = args->cmd; }
tracepoint:syscalls:sys_exit_ioctl /@start[tid]/
{
	@lat[pid, comm, @cmd[tid]] = hist(nsecs - @start[tid]);
	if (args->ret < 0) { @err[pid, @cmd[tid], - args->ret] = count(); }
	delete(@start[tid]); delete(@cmd[tid]);
}
BT
# The same work as --stream: one line per call with who, what, how long, result.
cat > "$tmp/stream.bt" <<BT
tracepoint:syscalls:sys_enter_ioctl
/ ((struct file *)*(curtask->files->fdt->fd + args->fd))->f_inode->i_rdev == $NULLDEV /
{ @start[tid] = nsecs; @cmd[tid] = args->cmd; }
tracepoint:syscalls:sys_exit_ioctl /@start[tid]/
{
	printf("%d %d %s %x %d %d\\n", pid, tid, comm, @cmd[tid], nsecs - @start[tid], args->ret);
	delete(@start[tid]); delete(@cmd[tid]);
}
BT

wait_for() { # file pattern
	for _ in $(seq 1 300); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
	echo "bench: tracer did not start: $(head -c 300 "$1")" >&2; return 1
}
measure() { "$LOOP" "$N" "$R"; }

load=$(cut -d' ' -f1-3 /proc/loadavg)
base=$(measure)
"$XP" ioctl --device /dev/null > "$tmp/sum.out" 2> "$tmp/sum.err" & p=$!
wait_for "$tmp/sum.err" '^Tracing'; summary=$(measure); kill -INT $p; wait $p
"$XP" ioctl --device /dev/null --stream > /dev/null 2> "$tmp/str.err" & p=$!
wait_for "$tmp/str.err" '^Tracing'; stream=$(measure); kill -INT $p; wait $p
drops=$(grep -o 'drops: [0-9]*' "$tmp/sum.out" | head -1)
if command -v bpftrace >/dev/null; then
	bpftrace "$tmp/ioctl.bt" > "$tmp/bt.out" 2>&1 & p=$!
	wait_for "$tmp/bt.out" '^Attaching'; bt=$(measure); kill -INT $p; wait $p || true
	bpftrace "$tmp/stream.bt" > "$tmp/bts.out" 2>&1 & p=$!
	wait_for "$tmp/bts.out" '^Attaching'; bts=$(measure); kill -INT $p; wait $p || true
else
	bt="" bts=""
fi

ratio() { awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN { if (c - b > 0) printf "%.2f", (a - b) / (c - b); else print "n/a" }'; }
added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a - b }'; }
{
	echo "# ioctl tracing overhead"
	echo
	echo "Measured by \`make bench\` ($(basename "$0")) on $(date -u +%Y-%m-%d), kernel $(uname -r),"
	echo "$(nproc) CPUs (load average $load at the start): median ns per ioctl on /dev/null over"
	echo "$R rounds of $N calls."
	echo
	echo "| configuration | ns/call | added ns | added vs bpftrace |"
	echo "|---|---|---|---|"
	echo "| no tracer | $base | 0 | |"
	echo "| xputrace ioctl (summary, kernel aggregation) | $summary | $(added "$summary" "$base") | ${bt:+$(ratio "$summary" "$base" "$bt")} |"
	echo "| xputrace ioctl --stream | $stream | $(added "$stream" "$base") | ${bts:+$(ratio "$stream" "$base" "$bts")} |"
	if [ -n "$bt" ]; then
		echo "| bpftrace: histogram per process and command (the summary's work) | $bt | $(added "$bt" "$base") | 1.00 |"
		echo "| bpftrace: printf per call (the stream's work) | $bts | $(added "$bts" "$base") | 1.00 |"
	fi
	echo
	echo "Each xputrace mode is compared with the bpftrace program doing the same work"
	echo "(both programs are in bench/ioctl_overhead.sh). Goals: summary mode adds less than"
	echo "half of what bpftrace adds (ratio < 0.5); stream mode adds no more than bpftrace"
	echo "(ratio <= 1). Drops in the xputrace summary run: ${drops#drops: }."
} > "$OUT"
cat "$OUT"
