#!/usr/bin/env bash
# What `xputrace ioctl` costs, measured in one run against baselines of the
# same run and written to bench/RESULTS-ioctl.md: the time added per traced
# ioctl by mode and by hook, against a count-only program on the same hook
# (the floor) and the bpftrace program doing the same work; the time added to
# a syscall that is not an ioctl (getppid); and, from the QEMU lab where it is
# set up, the calls each hook loses when several processes call at once.
# Not a test: figures vary with the machine; compare the ratios.
#   bench/ioctl_overhead.sh [CALLS_PER_ROUND] [ROUNDS] [PASSES]
# Every configuration is measured once per pass, the passes one after the
# other (so a slow minute of the machine touches every configuration a
# little, not one a lot), and each figure is the median over the passes.
# XPUTRACE_BENCH_LAB=0 leaves the lab out.
set -eu
cd "$(dirname "$0")/.."
N=${1:-1000000}
R=${2:-7}
PASSES=${3:-3}
XP=./xputrace
LOOP=build/bench/ioctl_loop
FLOOR=build/bench/floor
OUT=bench/RESULTS-ioctl.md
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root" >&2; exit 1; }
[ -x "$XP" ] && [ -x "$LOOP" ] && [ -x "$FLOOR" ] || { echo "bench: run 'make xputrace helpers' first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT

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
# one configuration: ns per ioctl and per getppid while COMMAND runs ("" for
# none), appended to its figures of earlier passes
declare -A IO PP
measure() { # NAME READY-PATTERN COMMAND...
	local name=$1 ready=$2 p=
	shift 2
	if [ $# -gt 0 ]; then
		"$@" > "$tmp/$name.out" 2> "$tmp/$name.err" & p=$!
		if ! wait_for "$tmp/$name.err" "$ready"; then
			kill -INT $p 2>/dev/null || true; wait $p || true; return 0
		fi
	fi
	IO[$name]="${IO[$name]:-} $("$LOOP" "$N" "$R")"
	PP[$name]="${PP[$name]:-} $("$LOOP" "$N" "$R" getppid)"
	if [ -n "$p" ]; then kill -INT $p; wait $p || true; fi
}
# bpftrace writes "Attaching" to stdout: read it there
measure_bt() { # NAME FILE
	local p
	bpftrace "$2" > "$tmp/$1.err" 2>&1 & p=$!
	wait_for "$tmp/$1.err" '^Attaching' || { kill $p; wait $p || true; return 0; }
	IO[$1]="${IO[$1]:-} $("$LOOP" "$N" "$R")"
	PP[$1]="${PP[$1]:-} $("$LOOP" "$N" "$R" getppid)"
	kill -INT $p; wait $p || true
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

load=$(cut -d' ' -f1-3 /proc/loadavg)
hooks="tracepoint tp_btf raw_tp"
"$FLOOR" kprobe 2>/dev/null & p=$!; sleep 0.5
if kill -0 $p 2>/dev/null; then hooks="kprobe $hooks"; kill -INT $p; fi; wait $p 2>/dev/null || true
drops=0
for pass in $(seq 1 "$PASSES"); do
	measure none ""
	for h in $hooks; do
		[ $h = raw_tp ] || measure floor-$h '^Attached' "$FLOOR" $h
		[ $h = raw_tp ] || measure clock-$h '^Attached' "$FLOOR" $h clock
		measure sum-$h '^Tracing' "$XP" ioctl --device /dev/null --hook $h
		measure str-$h '^Tracing' "$XP" ioctl --device /dev/null --hook $h --stream
	done
	drops=$((drops + $(grep -ho 'drops: [0-9]*' "$tmp"/sum-*.out | awk '{ n += $2 } END { print n + 0 }')))
	if command -v bpftrace >/dev/null; then
		measure_bt bt-sum "$tmp/ioctl.bt"
		measure_bt bt-str "$tmp/stream.bt"
	fi
done
# the spread of the passes, for the two configurations the summary goal compares
spread() { # NAME: min-max over the passes
	[ -n "${IO[$1]:-}" ] || return 0
	echo "${IO[$1]}" | tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { printf "%s-%s", v[1], v[NR] }'
}
spreads=""
for k in none sum-tracepoint bt-sum; do
	[ -n "${IO[$k]:-}" ] && spreads="$spreads${spreads:+, }$k $(spread $k)"
done
for k in "${!IO[@]}"; do
	IO[$k]=$(echo "${IO[$k]}" | median)
	PP[$k]=$(echo "${PP[$k]}" | median)
done

# the lab's concurrency scenario, on every kernel and vCPU count it runs on
lab="" labcost=""
if [ "${XPUTRACE_BENCH_LAB:-1}" != 0 ] && [ -x lab/test.sh ]; then
	lab/test.sh ioctl_load > "$tmp/lab.txt" 2>&1 || true
	logs=$(ls "${XPUTRACE_LAB_CACHE:-$HOME/.cache/xputrace-lab}"/results/*ioctl_load.log 2>/dev/null || true)
	[ -z "$logs" ] || lab=$(grep -h '^## loss:' $logs | sed 's/^## loss: //' || true)
	[ -z "$logs" ] || labcost=$(grep -h '^## cost:' $logs | sed 's/^## cost: //' || true)
fi

added() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print ""; else printf "%.0f", a - b }'; }
ratio() { # (a - base) / (b - base)
	awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN { if (a == "" || b == "" || c - b <= 0) print "n/a"; else printf "%.2f", (a - b) / (c - b) }'
}
row() { # LABEL NAME
	[ -n "${IO[$2]:-}" ] || return 0
	echo "| $1 | ${IO[$2]} | $(added "${IO[$2]}" "${IO[none]}") | ${PP[$2]} | $(added "${PP[$2]}" "${PP[none]}") |"
}
b=${IO[none]}
{
	echo "# ioctl tracing overhead"
	echo
	echo "Measured by \`make bench\` ($(basename "$0")) on $(date -u +%Y-%m-%d), kernel $(uname -r),"
	echo "$(nproc) CPUs (load average $load at the start): ns per call, the median over $PASSES passes"
	echo "of each configuration's median over $R rounds of $N calls, ioctls on /dev/null and"
	echo "getppid() (a syscall no ioctl tracer should slow). The passes' range, ns/ioctl: $spreads."
	echo "Hooks here: ${hooks// /, } (xputrace picks the first; tracepoint is passed over"
	echo "while a 32-bit program runs, as it does not see 32-bit calls)."
	echo
	echo "| configuration | ns/ioctl | added | ns/getppid | added (tax) |"
	echo "|---|---|---|---|---|"
	row "no tracer" none
	for h in $hooks; do
		row "count-only floor on $h (bench/bpf/floor.bpf.c)" floor-$h
		row "the floor reading the clock at entry and return" clock-$h
		row "xputrace ioctl, summary, $h" sum-$h
		row "xputrace ioctl --stream, $h" str-$h
	done
	row "bpftrace: syscalls:sys_*_ioctl, histogram per process and command" bt-sum
	row "bpftrace: syscalls:sys_*_ioctl, printf per call" bt-str
	echo
	echo "Ratios of added time (goals: summary <= 2 x the floor on its hook; summary <= 0.5 x"
	echo "bpftrace's histogram program; stream <= 0.5 x bpftrace's printf program; tax on getppid"
	echo "<= bpftrace's ioctl tracepoint pair, none where the hook is per function):"
	echo
	for h in $hooks; do
		[ $h = raw_tp ] && f=tp_btf || f=$h
		echo "- $h: summary / floor $(ratio "${IO[sum-$h]:-}" "$b" "${IO[floor-$f]:-}"),"\
		     "summary / bpftrace histogram $(ratio "${IO[sum-$h]:-}" "$b" "${IO[bt-sum]:-}"),"\
		     "stream / bpftrace printf $(ratio "${IO[str-$h]:-}" "$b" "${IO[bt-str]:-}"),"\
		     "tax / bpftrace pair's tax $(ratio "${PP[sum-$h]:-}" "${PP[none]}" "${PP[bt-sum]:-}")"
	done
	echo
	echo "The two clock reads a latency needs, against the count-only floor, and summary mode"
	echo "against the floor that reads the clock:"
	echo
	for h in $hooks; do
		[ $h = raw_tp ] && continue
		echo "- $h: floor with clock / floor $(ratio "${IO[clock-$h]:-}" "$b" "${IO[floor-$h]:-}"),"\
		     "summary / floor with clock $(ratio "${IO[sum-$h]:-}" "$b" "${IO[clock-$h]:-}")"
	done
	echo
	echo "Drops in the xputrace summary runs, all passes: $drops."
	echo
	echo "## Loss under concurrency (QEMU lab, lab/scenarios/ioctl_load.sh)"
	echo
	if [ -n "$lab" ]; then
		echo "4 processes x 3,000 DRM_IOCTL_VERSION on vkms plus one 32-bit process x 1,000, at once;"
		echo "per kernel and vCPU count, what each hook counted (the test asserts the kprobe line"
		echo "exact, and of the others that every call not counted is among the runs the kernel"
		echo "skipped; \"untimed\": calls whose start was skipped, counted at their return). The"
		echo "tracepoint hook cannot see the 32-bit client's calls, and names it instead:"
		echo
		echo "$lab" | sed 's/^/- /'
	else
		echo "Not measured in this run (lab not set up, or XPUTRACE_BENCH_LAB=0)."
	fi
	if [ -n "$labcost" ]; then
		echo
		echo "## Cost per hook in the lab guests (emulated CPUs: compare within a line group)"
		echo
		echo "ns per ioctl on /dev/null and per getppid() in summary mode, 5 rounds of 20,000:"
		echo
		echo "$labcost" | sed 's/^/- /'
		echo
		echo "Summary mode / the floor on the same hook, in the guests (goal <= 2):"
		echo
		echo "$labcost" | awk '
			{ key = $1 " " $2 " " $3; hook = $4; sub(/^\(\+/, "", $8); sub(/\),?$/, "", $8); add[key, hook] = $8; keys[key] = 1 }
			END { for (k in keys) { split("kprobe tracepoint tp_btf", hs, " ")
				for (i = 1; i <= 3; i++) { h = hs[i]
					if (add[k, "floor-" h] > 0 && (k SUBSEP h) in add)
						printf "- %s %s: %.2f\n", k, h, add[k, h] / add[k, "floor-" h] } } }' | sort
	fi
} > "$OUT"
cat "$OUT"
exit 0
