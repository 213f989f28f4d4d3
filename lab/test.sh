#!/usr/bin/env bash
# The lab layer of the test suite: every scenario in lab/scenarios on both
# kernel generations, one line per test:
#   PASS lab/KERNEL/NAME | FAIL lab/KERNEL/NAME | SKIP lab/KERNEL/NAME: reason
# Exits non-zero on any FAIL. When Debian's archive cannot be reached and
# nothing is cached, every test is reported as SKIP with the reason.
#   lab/test.sh [--kernel old|new] [SCENARIO...]
# Needs root on Debian 12 (installs qemu-system-x86, busybox-static, gcc-12, ...).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kernels=(old new)
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernels=("$2"); shift 2 ;;
	-h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
	for f in "$LAB_DIR"/scenarios/*.sh; do scenarios+=("$(basename "$f" .sh)"); done
fi
# A scenario runs once per vCPU count in its "# lab-cpus: 1 2" line (default
# 1), or in its "# lab-cpus-KERNEL: ..." line for that kernel; NAME@N is its
# run on N vCPUs, reported as lab/KERNEL-Ncpu/...
runs_of() { # KERNEL: the runs of the scenarios on it
	local s c
	for s in "${scenarios[@]}"; do
		case $s in *@*) echo "$s"; continue ;; esac
		c=$(sed -n -e "s/^# lab-cpus-$1: //p" "$LAB_DIR/scenarios/$s.sh" 2>/dev/null | head -1)
		[ -n "$c" ] || c=$(sed -n 's/^# lab-cpus: //p' "$LAB_DIR/scenarios/$s.sh" 2>/dev/null | head -1)
		for n in ${c:-1}; do echo "$s@$n"; done
	done
}
t0=$(date +%s)
mkdir -p "$CACHE"
SUMMARY="$CACHE/results/summary.txt"
mkdir -p "$CACHE/results"; : >"$SUMMARY"
fails=0
report() { echo "$*" | tee -a "$SUMMARY"; case $1 in FAIL\ *) fails=$((fails + 1)) ;; esac; }
skip_all() {
	local k s
	for k in "${kernels[@]}"; do for s in "${scenarios[@]}"; do report "SKIP lab/$k/$s: $1"; done; done
}

# Set-up: host tools, kernels (downloads only on a cold cache), and beside
# them xputrace itself, fully static, for the guests.
if [ "$(id -u)" -ne 0 ]; then skip_all "the lab needs root (apt-get, QEMU set-up)"; exit 0; fi
make -s -C "$REPO_DIR" static >"$CACHE/results/make-static.log" 2>&1 & static_pid=$!
rc=0; setup_log=$("$LAB_DIR/fetch.sh" "${kernels[@]}" 2>&1) || rc=$?
echo "$setup_log" | grep -E '^kernel ' | tee -a "$SUMMARY"
if [ $rc -eq $EX_SKIP ]; then
	wait $static_pid
	skip_all "$(echo "$setup_log" | sed -n 's/^lab: skip: //p' | tail -1)"; exit 0
elif [ $rc -ne 0 ]; then
	wait $static_pid
	echo "$setup_log" | tail -20 >&2
	report "FAIL lab/setup: lab/fetch.sh failed (status $rc)"; exit 1
fi

xp_note=""
if ! wait $static_pid; then
	xp_note="make static failed (see $CACHE/results/make-static.log)"
	export XPUTRACE_BIN=/nonexistent
	tail -5 "$CACHE/results/make-static.log" >&2
else
	# one binary for the whole run, even if the tree is rebuilt meanwhile
	cp "$REPO_DIR/xputrace-static" "$CACHE/results/xputrace-static"
	export XPUTRACE_BIN="$CACHE/results/xputrace-static"
	# the benchmark's count-only floor, for the cost figures of ioctl_load
	make -s -C "$REPO_DIR" build/bench/floor-static >>"$CACHE/results/make-static.log" 2>&1 &&
		cp "$REPO_DIR/build/bench/floor-static" "$CACHE/results/floor-static"
fi

# The guest programs the kernels share, then each kernel's test modules, the
# kernels at once.
jobs_list=()
"$LAB_DIR/build.sh" guest >"$CACHE/results/build-guest.log" 2>&1 || tail -20 "$CACHE/results/build-guest.log" >&2
declare -A build_pid=()
for k in "${kernels[@]}"; do
	"$LAB_DIR/build.sh" "$k" >"$CACHE/results/build-$k.log" 2>&1 & build_pid[$k]=$!
done
for k in "${kernels[@]}"; do
	if ! wait "${build_pid[$k]}"; then
		tail -20 "$CACHE/results/build-$k.log" >&2
		report "FAIL lab/$k/build: lab/build.sh $k failed"
		continue
	fi
	sed -n 's/^lab: building \(.*\) failed.*/\1/p' "$CACHE/results/build-$k.log" | while read -r m; do
		echo "lab: $k: test module $m did not build (see $CACHE/results/build-$k.log)"
	done
	for run in $(runs_of "$k"); do jobs_list+=("$k $run"); done
done

# The runs go to XPUTRACE_LAB_JOBS guests at once (default: one per host
# core, at most 4; each guest is one emulation thread and 1 GB). Longest
# first, by the times of the last run (TIMES), so that no guest is left with
# a long run at the end; a run not timed yet counts as long.
TIMES="$CACHE/times.txt"
# (a fresh cache starts from the times committed with the lab)
[ -s "$TIMES" ] || cp "$LAB_DIR/times.txt" "$TIMES" 2>/dev/null || :
njobs=${XPUTRACE_LAB_JOBS:-$(nproc)}
[ "$njobs" -ge 1 ] 2>/dev/null || njobs=1
[ "$njobs" -le 4 ] || njobs=4
# A guest that shares the host with others runs slower: more time before
# it counts as hung. Beside another guest, make test's e2e layer and a busy
# loop on each host core, npu and nvidia_hooks took over 300 s (idle: 110),
# and npu once 466 s: 900 s beside one other guest.
timeout=$((300 + 600 * (njobs - 1)))
# A scenario with a "# lab-alone" line (a display client held to its frame
# rate, compared frame by frame) runs with no other guest beside it, after
# the others.
QUEUE="$CACHE/results/queue"
for j in "${jobs_list[@]}"; do
	set -- $j
	kk=$1; [ "${2#*@}" = 1 ] || kk="$1-${2#*@}cpu"
	ms=$(awk -v n="lab/$kk/${2%@*}" '$2 == n { print $1 }' "$TIMES" 2>/dev/null | tail -1)
	q=par; ! grep -q '^# lab-alone' "$LAB_DIR/scenarios/${2%@*}.sh" || q=alone
	echo "$q ${ms:-999999} $j"
done | sort -k2,2rn >"$QUEUE.all"
for q in par alone; do
	awk -v q=$q '$1 == q { print $3, $4 }' "$QUEUE.all" >"$QUEUE.$q"
	echo 0 >"$QUEUE.$q.next"
done
: >"$CACHE/results/times.new"

# one run of scenario $2 (NAME@CPUS) on kernel $1; its lines go to $JOBOUT
run_one() {
	local k=$1 run=$2 s cpus kk log_file t_run attempt rc first out results reason verdict name
	s=${run%@*} cpus=${run#*@} kk=$k
	[ "$cpus" = 1 ] || kk="$k-${cpus}cpu"
	log_file="$CACHE/results/$kk-$s.log"
	out="$CACHE/results/$kk-$s/output.txt"
	t_run=$(date +%s%3N)
	# A scenario that fails runs once more: under QEMU's emulation a host
	# stall shifts timings by milliseconds, and the guest kernel's code
	# patching (static keys, int3) can crash a guest now and then. The
	# last run decides; each failure before it is written down, not hidden.
	# A scenario's "# lab-runs: N" line allows N runs in all, its "# lab-timeout:
	# S" line a shorter wait (never a longer one) before its guest counts as hung.
	local runs tmo=$timeout t
	runs=$(sed -n 's/^# lab-runs: \([1-9]\)$/\1/p' "$LAB_DIR/scenarios/$s.sh" | head -1)
	t=$(sed -n 's/^# lab-timeout: \([0-9][0-9]*\)$/\1/p' "$LAB_DIR/scenarios/$s.sh" | head -1)
	[ -z "$t" ] || [ "$t" -ge "$tmo" ] || tmo=$t
	for attempt in $(seq 1 "${runs:-2}"); do
		rm -rf "$CACHE/results/$kk-$s"	# never read an earlier run's result
		rc=0
		XPUTRACE_LAB_PREPARED=$k XPUTRACE_LAB_CPUS=$cpus "$LAB_DIR/run.sh" --kernel "$k" --timeout "$tmo" "$s" \
			>"$log_file" 2>&1 || rc=$?
		[ $rc -eq 0 ] || [ $rc -eq $EX_SKIP ] || [ "$attempt" -eq "${runs:-2}" ] && break
		first=$(tr -d '\r' <"$out" 2>/dev/null | grep -m1 '^FAIL')
		[ -n "$first" ] || first=$(grep -E -m1 '^(guest |lab: error)' "$log_file")
		cp "$log_file" "$log_file.run$attempt"
		echo "lab: $kk/$s failed on its run $attempt (${first:-status $rc}); running it again"
	done
	results=$(tr -d '\r' <"$out" 2>/dev/null | sed -n 's/^RESULT \([^ ]*\) \(PASS\|FAIL\)$/\2 \1/p')
	if [ $rc -eq $EX_SKIP ]; then
		reason=$(tr -d '\r' <"$out" 2>/dev/null | sed -n 's/^SKIP: //p' | tail -1)
		[ -n "$reason" ] || reason=$(sed -n 's/^lab: skip: //p' "$log_file" | tail -1)
		[ -z "$xp_note" ] || reason="$reason; $xp_note"
		echo "SKIP lab/$kk/$s: ${reason:-skipped}"
	elif [ -n "$results" ]; then
		while read -r verdict name; do echo "$verdict lab/$kk/$name"; done <<<"$results"
		if [ $rc -ne 0 ] && ! grep -q '^FAIL' <<<"$results"; then
			echo "FAIL lab/$kk/$s: guest status $rc"
		fi
	elif [ $rc -eq 0 ]; then
		echo "PASS lab/$kk/$s"
	else
		echo "FAIL lab/$kk/$s: $(grep -E '^(guest |lab: error)' "$log_file" | head -1)"
	fi
	if [ $rc -ne 0 ] && [ $rc -ne $EX_SKIP ]; then
		grep -E '^(FAIL|guest|lab: error)' "$log_file" | sed 's/^/    /' | head -20
		# what the guest kernel said when it died, if it did
		grep -E -m4 '(Kernel panic|BUG:|Oops|RIP: )' "$log_file" | sed 's/^/    console: /'
	fi
	# its time, retry included: for the order of the next run, and the test
	# runner's list of the slowest
	echo "$(($(date +%s%3N) - t_run)) lab/$kk/$s" >>"$CACHE/results/times.new"
	[ -z "${XP_TIMES:-}" ] || echo "$(($(date +%s%3N) - t_run)) lab/$kk/$s" >>"$XP_TIMES"
}

# a guest slot: takes the next run off queue $2 until none is left; each
# run's lines are printed (and summarised) whole, under the lock
worker() {
	local n job JOBOUT="$CACHE/results/worker-$1.out" q="$QUEUE.$2"
	while :; do
		n=$(flock "$QUEUE.lock" sh -c 'n=$(cat "$1"); echo $((n + 1)) >"$1"; echo $n' sh "$q.next")
		job=$(sed -n "$((n + 1))p" "$q")
		[ -n "$job" ] || break
		run_one $job >"$JOBOUT" 2>&1
		flock "$QUEUE.lock" sh -c 'cat "$1"; grep -E "^(PASS|FAIL|SKIP|lab: )" "$1" >>"$2"' sh "$JOBOUT" "$SUMMARY"
	done
}
# the display scenarios that take no guest beside them run last: by then
# `make test`'s unit and e2e layers, which run beside the lab, are done too
# (beside them a loaded host could not hold a display client at 60 Hz)
wpids=()
for w in $(seq 1 "$njobs"); do worker "$w" par & wpids+=($!); done
wait "${wpids[@]}"
worker 0 alone
# this run's times replace those of the same runs before
{ cat "$TIMES" 2>/dev/null || :; cat "$CACHE/results/times.new"; } | awk '/^#/ { next } { t[$2] = $1 } END { for (n in t) print t[n], n }' >"$TIMES.tmp" &&
	mv "$TIMES.tmp" "$TIMES"
fails=$(grep -c '^FAIL' "$SUMMARY")
echo "lab: $(($(date +%s) - t0)) s; logs and results in $CACHE/results" | tee -a "$SUMMARY"
[ $fails -eq 0 ]
