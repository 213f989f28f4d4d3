# Helpers for lab scenarios, sourced in the guest before the scenario.
# A scenario exits 0 (pass), 77 (skip: print "SKIP: reason" first) or other.
T=/sys/kernel/tracing
S=${S:-/scratch}	# the guest's scratch directory (a tmpfs)
FAILS=0		# failed checks in all
GROUP=""	# a scenario may report several named tests: "group NAME"
GFAILS=0

# Start a named sub-test; its checks are reported as one result line
# "RESULT scenario.NAME PASS|FAIL" (the scenario's own checks as "RESULT scenario ...").
# each group's line carries the guest's clock, so that a slow scenario's log
# shows where its time went
group() { end_group; GROUP=$1; GFAILS=0; say "test $(cat /lab/scenario.name).$1 (at $(cut -d' ' -f1 /proc/uptime) s)"; }
end_group() {
	local name; name=$(cat /lab/scenario.name)${GROUP:+.$GROUP}
	if [ "$GFAILS" -eq 0 ]; then echo "RESULT $name PASS"; else echo "RESULT $name FAIL"; fi
	GFAILS=0
}

say() { echo "## $*"; }
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; FAILS=$((FAILS + 1)); GFAILS=$((GFAILS + 1)); }
# check "description" test-args...: one assertion, counted
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
# expect_eq "description" expected actual
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else bad "$1: expected '$2', got '$3'"; fi; }
skip_test() { echo "SKIP: $*"; exit 77; }
finish() { end_group; say "$FAILS failed check(s) (at $(cut -d' ' -f1 /proc/uptime) s)"; [ "$FAILS" -eq 0 ]; exit $?; }
need_xputrace() { command -v xputrace >/dev/null || skip_test "no xputrace binary in the guest (make static failed or was not run)"; }

# Load a module and the modules it depends on (modules.dep from busybox depmod).
load() { modprobe "$@" || { bad "modprobe $*"; return 1; }; }

# Enable trace events ("group:event" or "group") and clear the buffer.
trace_on() {
	echo 0 >$T/tracing_on; : >$T/trace
	for e in "$@"; do
		case $e in
		*:*) echo 1 >"$T/events/${e%%:*}/${e#*:}/enable" ;;
		*) echo 1 >"$T/events/$e/enable" ;;
		esac
	done
	echo 1 >$T/tracing_on
}
trace_off() { echo 0 >$T/tracing_on; cat $T/trace >$S/trace.txt; echo 0 >$T/events/enable; }
# kprobe hits the kernel could not record: a probe that fires while another
# kprobe handler runs on the same CPU (an interrupt in a handler) is missed
kprobe_missed() { awk -v e="$1" '$1 == e { print $3 }' $T/kprobe_profile; }
# count lines of the last trace that match an event name (": name:")
trace_count() { grep -c " $1: " $S/trace.txt; }

# xputrace ARGS... in the background with stdout to OUT and stderr to
# OUT.err; returns once it says it is tracing (sets XPID), or fails the check
# after XP_START_TRIES x 50 ms (default 400) or when it exits first.
start_xp() { # OUT ARGS...
	local out=$1 i=0
	shift
	rm -f $out.err	# an earlier run's "Tracing" must not be read as this one's
	xputrace "$@" >$out 2>$out.err &
	XPID=$!
	while ! grep -q '^Tracing' $out.err 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt "${XP_START_TRIES:-400}" ] || ! kill -0 $XPID 2>/dev/null; then
			bad "xputrace $* did not start: $(cat $out.err)"
			return 1
		fi
		sleep 0.05
	done
}
stop_xp() { kill -INT $XPID; wait $XPID; }
# card_of DEVICE: the /dev/dri/cardN of a DRM device by what it is ("vkms", "vgem")
card_of() {
	local c
	for c in /sys/class/drm/card[0-9]*; do
		case ${c##*/} in *-*) continue ;; esac
		[ "$(basename "$(readlink -f "$c/device")")" = "$1" ] && { echo /dev/dri/${c##*/}; return; }
	done
}
# what a test module counted, from its "NAME calls ns" lines: cnt FILE NAME, ns FILE NAME
cnt() { awk -v f=$2 '$1 == f { print $2 }' $1; }
ns() { awk -v f=$2 '$1 == f { print $3 }' $1; }
# median: the median of the numbers on stdin, one a line (nothing for none)
# median [EMPTY]: of the numbers on stdin, one a line; EMPTY (or nothing) when none
median() { sort -n | awk -v e="${1-}" 'NF { v[++k] = $1 } END { if (k) print v[int((k + 1) / 2)]; else if (e != "") print e }'; }
# median_vs_module NAME XP_P50 XP_N IMPOSED_NS MODULE_VALUES...: the tracer's
# median of at least 9 calls (its summary's p50) within tolerance of the
# median of the same calls by the test module's own clock, and that median at
# least 95 % of the delay the module imposes. A median is not moved by a few
# calls a host stall lengthened, however long the stall. The tolerance: 10 %
# for the probes' own cost under emulation, plus 1/16 because the summary's
# p50 is interpolated in log-linear buckets 1/8 of an octave wide. With
# XP_OUTER="VALUES", the same calls timed by their caller: the module's
# clock inside the function misses what runs after its last read and before
# the return (on a loaded host, the interrupts a stalled vCPU handles when it
# runs again), so the tracer's entry -> return may be up to that median.
median_vs_module() {
	local name=$1 x=$2 xn=$3 imp=$4 m n o
	shift 4
	n=$#
	m=$(printf '%s\n' "$@" | median)
	o=$(printf '%s\n' ${XP_OUTER:-} | median)
	if [ "${xn:-0}" -lt 9 ] || [ "$n" -lt 9 ]; then bad "$name: too few calls for a median (tracer ${xn:-0}, module $n)"; return; fi
	awk -v x=$x -v m=$m -v o=${o:-0} -v imp=$imp -v xn=$xn -v n=$n 'BEGIN {
		tol = 0.10 + 0.0625; hi = o > m ? o : m
		d = x < m ? (m - x) / m : x > hi ? (x - hi) / hi : 0
		printf "%.0f %.0f %.3f (tolerance %.3f, medians of %d and %d calls", x, m, d, tol, xn, n
		if (o) printf "; by the caller %.0f", o
		printf ")\n"
		exit !(d <= tol && m >= 0.95 * imp) }' >$S/w.txt
	if [ $? -eq 0 ]; then ok "$name: tracer median / module median / deviation: $(cat $S/w.txt)"
	else bad "$name: tracer median / module median / deviation (imposed $imp ns): $(cat $S/w.txt)"; fi
}
# within_module NAME XP_SUM XP_N MOD_SUM MOD_N IMPOSED_NS: a tracer's mean within
# tolerance of a test module's mean by its own clock, and that mean the delay
# the module imposes (a busy wait: at least 95 % of it). The tolerance is 10 %
# (the probes' own cost, which grows under emulation on a busy host) plus one
# host stall of 8 ms (the most seen under emulation) spread over the calls: one
# interrupted call must not move the mean past it, so checks need enough calls
# for the tolerance to stay meaningful (printed with each result).
within_module() {
	set -- "$1" "${2:-0}" "${3:-0}" "${4:-0}" "${5:-0}" "$6"
	if [ "$3" -eq 0 ] || [ "$5" -eq 0 ]; then bad "$1: no calls timed (tracer $3, module $5)"; return; fi
	awk -v xs=$2 -v xn=$3 -v ms=$4 -v mn=$5 -v imp=$6 'BEGIN {
		x = xs / xn; m = ms / mn; d = (x - m) / m; if (d < 0) d = -d
		n = xn < mn ? xn : mn; tol = 0.10 + 8000000 / (n * m)
		printf "%.0f %.0f %.3f (tolerance %.3f over %d calls)\n", x, m, d, tol, n
		exit !(d <= tol && m >= 0.95 * imp) }' >$S/w.txt
	if [ $? -eq 0 ]; then ok "$1: tracer mean / module mean / deviation: $(cat $S/w.txt)"
	else bad "$1: tracer mean / module mean / deviation (imposed $6 ns): $(cat $S/w.txt)"; fi
}


# nv_timing HOOK JSON (nvidia_double loaded; HOOK "" for the one xputrace
# picks): the delays the double imposes, 11 calls of each, timed by
# `xputrace nvidia` and by the module per call (debugfs each), compared on
# medians (median_vs_module), labelled with the hook, and the double's
# callers' clocks (its debugfs outer) as the upper end. (The hooks' own cost,
# measured once by timing the same calls without the delays, was 3-50 us a
# call under emulation, idle or with a busy loop on every host core.)
nv_timing() {
	local hk=$1 j=$2 f p imp lb what
	nv_calls "$hk" $j || return
	lb="$(jget $j hook)"
	while read -r f p imp; do
		case $f in nvidia_isr_msix) what="its nvidia_isr's 2 ms" ;; *) what="$((imp / 1000000)) ms imposed" ;; esac
		XP_OUTER="$(nv_each $f $j outer)" \
			median_vs_module "$lb: $f ($what)" "$(jget $j $p.p50)" "$(jget $j $p.count)" $imp $(nv_each $f $j)
	done <<-EOF
	NV_ESC_RM_CONTROL ioctls[name=NV_ESC_RM_CONTROL].latency_ns 2000000
	nvidia_isr irqs[irq=42].isr 2000000
	nvidia_isr_msix irqs[irq=42].isr_msix 2000000
	nvidia_isr_kthread_bh irqs[irq=42].bottom_half 2000000
	nvidia_suspend suspend_ns 5000000
	nvidia_resume resume_ns 3000000
	EOF
}
# nv_calls HOOK JSON: one tracer of HOOK (to JSON) over 11 calls of each timed
# function; the double's call counts before and after them in JSON.before and
# .after, for nv_each
nv_calls() {
	local hk=$1 j=$2 k rc rx
	nv_counts >$j.before
	if [ -n "$hk" ]; then XPUTRACE_NVIDIA_HOOK=$hk start_xp $j nvidia --json || return
	else start_xp $j nvidia --json || return; fi
	nvclient alloc=0 control=11 pages=0 >$j.client; rc=$?
	nv_bh_done
	# one interrupt at a time: in a burst the next interrupt's 2 ms handler
	# preempts a bottom half, and its time would be the burst's
	for k in 1 2 3 4 5 6 7 8 9 10 11; do
		echo "irq 1" >/sys/kernel/debug/nvidia_double/trigger; sleep 0.01; nv_bh_done
	done
	for k in 1 2 3 4 5 6 7 8 9 10 11; do echo suspend >/sys/kernel/debug/nvidia_double/trigger; done
	sleep 0.3
	stop_xp; rx=$?
	nv_counts >$j.after
	expect_eq "$(jget $j hook): timing: client and tracer status" "0 0" "$rc $rx"
	say "$(jget $j hook): timing: drops $(jget $j drops.total)"
}
# the double's calls so far per function, by its clock ("NAME N") and by their callers' ("outer:NAME N")
nv_counts() {
	awk '{ n[$1]++ } END { for (f in n) print f, n[f] }' /sys/kernel/debug/nvidia_double/each
	awk '{ n["outer:" $1]++ } END { for (f in n) print f, n[f] }' /sys/kernel/debug/nvidia_double/outer
}
# nv_each FUNC JSON [outer]: the double's times per call of FUNC during nv_calls' JSON (outer: by its
# caller; NV_ESC_RM_CONTROL's caller is nvclient, which times each ioctl)
nv_each() {
	local b a k=$1 file=/sys/kernel/debug/nvidia_double/each
	if [ "$1 ${3:-}" = "NV_ESC_RM_CONTROL outer" ]; then
		awk '$1 == "control_ns" { print $2 }' $2.client; return
	fi
	[ "${3:-}" != outer ] || k=outer:$1 file=/sys/kernel/debug/nvidia_double/outer
	b=$(awk -v k=$k '$1 == k { print $2 }' $2.before)
	a=$(awk -v k=$k '$1 == k { print $2 }' $2.after)
	awk -v k=$1 -v b=${b:-0} -v a=${a:-0} '$1 == k && ++n > b && n <= a { print $2 }' $file
}
# until every interrupt the double raised has had its bottom half
nv_bh_done() {
	local i=0 C=/sys/kernel/debug/nvidia_double/counts
	while [ "$(cnt $C nvidia_isr_kthread_bh)" != "$(cnt $C nvidia_isr)" ] && [ $i -lt 600 ]; do
		sleep 0.05; i=$((i + 1))
	done
}

# The flight recorder beside a plain recording of the same run (flight_*.sh).
# flight_start CAP COND LAST AFTER: `record -o /tmp/full.xpt CAP` and
# `record --last LAST --after AFTER --trigger COND -o /tmp/flight CAP`, both attached.
flight_start() {
	start_xp /tmp/full.out record -o /tmp/full.xpt $1 || return 1
	FULL=$XPID
	start_xp /tmp/fl.out record --last $3 --after $4 --trigger $2 -o /tmp/flight $1 || return 1
	FL=$XPID
}
# flight_stop CAP LABEL COND WAIT: after WAIT seconds (the window's end and
# the grace after it) both stop; one file DIR/*-LABEL.xpt ($F), its trigger
# said, read by report: /tmp/fl.json and .info beside /tmp/full.json and .info.
flight_stop() {
	sleep $4
	kill -INT $FL; wait $FL; expect_eq "record --last exit status" 0 $?
	kill -INT $FULL; wait $FULL; expect_eq "record exit status" 0 $?
	cat /tmp/fl.out.err
	expect_eq "files written" 1 "$(ls /tmp/flight | grep -c -- "-$2\.xpt$")"
	F=$(ls /tmp/flight/*-$2.xpt | head -1)
	check "the trigger was said with its file" grep -q "trigger $3 at .*writing $F" /tmp/fl.out.err
	xputrace report $F $1 --json >/tmp/fl.json 2>/tmp/fl.rep.err
	expect_eq "report of the file: exit status" 0 $?
	check "report of the file says nothing on stderr" [ ! -s /tmp/fl.rep.err ]
	xputrace report /tmp/full.xpt $1 --json >/tmp/full.json
	xputrace report $F --info --json >/tmp/fl.info
	xputrace report /tmp/full.xpt --info --json >/tmp/full.info
}
# The file holds as many records as the plain recording (its window covered
# the whole run), unless a tracer lost events the kernel skipped.
flight_same_records() {
	if [ "$(jget /tmp/full.info drops.kernel_missed)" = 0 ] && [ "$(jget /tmp/fl.info drops.kernel_missed)" = 0 ]; then
		expect_eq "records in the file = records of the plain recording" "$(jget /tmp/full.info records)" \
			"$(jget /tmp/fl.info records)"
	else
		say "a tracer lost events (kernel-skipped runs): records not compared"
	fi
}
