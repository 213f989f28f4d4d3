#!/usr/bin/env bash
# The trace file at scale, written to bench/RESULTS-file.md: bytes per event
# and events per second of record, report and export, per capability, for
# format 1.1 (records as they are), format 2 (packed) and format 2 with zstd,
# all in one run so that the ratios compare like with like.
#  - record: a real flood of ioctls on /dev/null from two processes
#    (bench/ioctl_loop), recorded once per format: the rate the callers
#    reached, the drops and the file's bytes per event.
#  - report and export: files of the same records in each format, written by
#    bench/filegen from that recording and from the golden fixtures of the
#    other capabilities (repeated to a few hundred thousand records each);
#    CPU time of one process (user + system), the best of a few runs.
# Not a test: figures vary with the machine and its load; compare the ratios.
#   bench/file.sh [CALLS_PER_PROCESS]
set -eu
cd "$(dirname "$0")/.."
N=${1:-600000}
XP=./xputrace
LOOP=build/bench/ioctl_loop
GEN=build/bench/filegen
OUT=bench/RESULTS-file.md
FIX=tests/golden/data/gen
[ -x "$XP" ] && [ -x "$LOOP" ] && [ -x "$GEN" ] || { echo "bench: run 'make xputrace helpers' first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
FORMATS="v1 packed zstd"
declare -A FLAG=([v1]=--format1 [packed]= [zstd]=--compress)
declare -A NAME=([v1]="format 1.1" [packed]="format 2" [zstd]="format 2 + zstd")
# a build without libzstd: no zstd column
"$GEN" "$FIX/npu.xpt" "$tmp/z.xpt" zstd > /dev/null 2>&1 || FORMATS="v1 packed"

# cpu_s RUNS CMD...: the CPU seconds (user + system) CMD took, best of RUNS
cpu_s() {
	local best= t runs=$1
	shift
	for _ in $(seq 1 "$runs"); do
		t=$( { TIMEFORMAT='%3U %3S'; time "$@" > /dev/null 2>&1; } 2>&1 | awk '{ print $1 + $2 }')
		best=$(awk -v a="$t" -v b="${best:-1e9}" 'BEGIN { print (a < b) ? a : b }')
	done
	echo "$best"
}
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.2f", n / s / 1e6; else print "-" }'; }
per() { awk -v b="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.1f", b / n; else print "-" }'; }
records_of() { "$XP" report "$1" --info --json 2>/dev/null | sed -n 's/.*"records":\([0-9]*\).*/\1/p'; }
drops_of() {
	"$XP" report "$1" --info --json 2>/dev/null |
		sed -n 's/.*"ringbuf":\([0-9]*\),"map_full":\([0-9]*\),"kernel_missed":\([0-9]*\).*/\1 \2 \3/p' |
		awk '{ print $1 + $2 + $3 }'
}

# ---- record: a real ioctl flood, once per format ------------------------------
declare -A REC_RATE REC_BPE REC_DROPS REC_N
rec_note=
record_one() { # FORMAT
	local f=$1 p l t0 t1
	rm -f "$tmp/rec_$f.xpt"
	"$XP" record -o "$tmp/rec_$f.xpt" --device /dev/null ${FLAG[$f]} ioctl 2> "$tmp/rec_$f.err" &
	p=$!
	for _ in $(seq 1 200); do grep -q Tracing "$tmp/rec_$f.err" 2>/dev/null && break; sleep 0.05; done
	if ! grep -q Tracing "$tmp/rec_$f.err"; then
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
		rec_note="record could not trace here: $(head -c 200 "$tmp/rec_$f.err" | tr '\n' ' ')"
		return 1
	fi
	t0=$(date +%s.%N)
	"$LOOP" $((N / 3)) 3 > /dev/null &
	l=$!
	"$LOOP" $((N / 3)) 3 > /dev/null
	wait "$l"
	t1=$(date +%s.%N)
	sleep 1.2	# the last second's block and stats
	kill -INT "$p"
	wait "$p" || true
	REC_N[$f]=$(records_of "$tmp/rec_$f.xpt")
	REC_RATE[$f]=$(awk -v n=$((2 * (N / 3) * 3)) -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", n / (b - a) / 1e6 }')
	REC_BPE[$f]=$(per "$(stat -c %s "$tmp/rec_$f.xpt")" "${REC_N[$f]:-0}")
	REC_DROPS[$f]=$(drops_of "$tmp/rec_$f.xpt")
}
recorded=1
if [ "$(id -u)" -ne 0 ]; then
	recorded=0
	rec_note="record needs root: not measured"
else
	for f in $FORMATS; do record_one "$f" || { recorded=0; break; }; done
fi

# ---- the files of each capability, in each format -----------------------------
# SOURCE COPIES per capability; the ioctl row is the recording when there is one
declare -A SRC=([ioctl]="$FIX/ioctl.xpt 4000" [sched]="$FIX/sched_new.xpt 1000"
		[vblank]="$FIX/vblank.xpt 2000" [mem]="$FIX/mem.xpt 3000" [npu]="$FIX/npu.xpt 10000")
[ "$recorded" = 1 ] && SRC[ioctl]="$tmp/rec_packed.xpt 1"
CAPS="ioctl sched vblank mem npu"
declare -A BPE WRITE REPORT EXPORT NREC
for c in $CAPS; do
	set -- ${SRC[$c]}
	for f in $FORMATS; do
		read -r n bytes secs < <("$GEN" "$1" "$tmp/$c.$f.xpt" "$f" "$2")
		NREC[$c]=$n
		BPE[$c.$f]=$(per "$bytes" "$n")
		WRITE[$c.$f]=$(rate "$n" "$secs")
		REPORT[$c.$f]=$(rate "$n" "$(cpu_s 5 "$XP" report "$tmp/$c.$f.xpt" "$c")")
		EXPORT[$c.$f]=$(rate "$n" "$(cpu_s 3 "$XP" export --perfetto "$tmp/$c.$f.xpt" -o /dev/null)")
	done
	rm -f "$tmp/$c".*.xpt
done

# ---- the results ---------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'; }
{
	echo "# The trace file: bytes per event, events per second"
	echo
	echo "Measured by \`make bench\` (bench/file.sh) on $(date -u +%Y-%m-%d) on a machine of $(nproc) CPUs"
	echo "($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), kernel $(uname -r),"
	echo "shared with other work (load average $(cut -d' ' -f1-3 /proc/loadavg) at the end). \"M/s\" is"
	echo "millions of events a second; report and export are CPU time of their one process"
	echo "(user + system), the best of 5 and 3 runs; every format is measured in this same run."
	echo "Format 1.1 is read by this build (its faster CRC helps format 1.1 files as well)."
	echo
	echo "## record: ioctls on /dev/null from two processes, $((2 * (N / 3) * 3)) calls"
	echo
	if [ "$recorded" = 1 ]; then
		echo "| format | records | bytes/event | ioctls/s reached (M/s) | drops |"
		echo "|---|---|---|---|---|"
		for f in $FORMATS; do
			echo "| ${NAME[$f]} | ${REC_N[$f]} | ${REC_BPE[$f]} | ${REC_RATE[$f]} | ${REC_DROPS[$f]} |"
		done
		echo
		echo "The rate is what the two callers reached while traced (the tracer's share of each"
		echo "call included); the writer's own ceiling is the \"write\" column below. Records over"
		echo "the calls made are other processes' ioctls on /dev/null meanwhile."
		echo
		for f in $FORMATS; do
			if awk -v r="${REC_RATE[$f]}" 'BEGIN { exit !(r >= 2.0) }'; then
				[ "${REC_DROPS[$f]}" = 0 ] && v="met" || v="not met: ${REC_DROPS[$f]} drops"
			else
				v="not shown: the callers reached ${REC_RATE[$f]} M/s only on this machine"
			fi
			echo "- 0 drops at >= 2 M ioctls/s, ${NAME[$f]}: $v"
		done
	else
		echo "$rec_note"
	fi
	echo
	echo "## per capability: the same records in each format"
	echo
	echo "ioctl: $( [ "$recorded" = 1 ] && echo "the format 2 recording above" || echo "$FIX/ioctl.xpt repeated" ); the others: their golden"
	echo "fixtures repeated (tests/golden/data/gen): a few hundred records over and over, which"
	echo "zstd squeezes far more than real traces (see the recording's zstd row for those)."
	echo "write: the writer alone (bench/filegen), CPU time."
	echo
	echo "| capability | records | format | bytes/event | write M/s | report M/s | export M/s |"
	echo "|---|---|---|---|---|---|---|"
	for c in $CAPS; do
		for f in $FORMATS; do
			echo "| $c | ${NREC[$c]} | ${NAME[$f]} | ${BPE[$c.$f]} | ${WRITE[$c.$f]} | ${REPORT[$c.$f]} | ${EXPORT[$c.$f]} |"
		done
	done
	echo
	echo "Against format 1.1 in this run (bytes: smaller is better; speeds: larger is better):"
	echo
	for c in $CAPS; do
		line="- $c: bytes $(ratio "${BPE[$c.packed]}" "${BPE[$c.v1]}") (packed)"
		[ -n "${BPE[$c.zstd]:-}" ] && line="$line, $(ratio "${BPE[$c.zstd]}" "${BPE[$c.v1]}") (zstd)"
		line="$line; report $(ratio "${REPORT[$c.packed]}" "${REPORT[$c.v1]}")"
		[ -n "${REPORT[$c.zstd]:-}" ] && line="$line / $(ratio "${REPORT[$c.zstd]}" "${REPORT[$c.v1]}")"
		line="$line; export $(ratio "${EXPORT[$c.packed]}" "${EXPORT[$c.v1]}")"
		[ -n "${EXPORT[$c.zstd]:-}" ] && line="$line / $(ratio "${EXPORT[$c.zstd]}" "${EXPORT[$c.v1]}")"
		echo "$line"
	done
} > "$OUT"
cat "$OUT"
