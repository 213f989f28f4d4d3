# xputrace latency with ends that come from interrupts: the iopf_double's
# smmu:io_fault_entry fires in the writer, its io_fault_exit 1.5 ms later
# from an hrtimer in hardirq context, from a soft hrtimer (softirq) or from a
# work item, while three threads fire overlapping faults of another PASID
# in task context. Against the kernel's own trace of the same run, in three
# rounds: every entry is a start or a start counted as skipped or refused,
# every exit a pair or an end counted by cause, nothing "still open", and
# where the kernel skipped nothing, the pairs per PASID are its exits.
# lab-cpus: 1 2
# lab-cpus-old: 1
# (two vCPUs on the newest kernel, where current users are; the older one
# once, to keep the suite within its time)
need_xputrace
load iopf_double || finish
D=/sys/kernel/debug/iopf_double
[ -w $D/fire ] || { bad "no $D/fire"; finish; }
[ -r $D/contexts ] || { bad "no $D/contexts (an iopf_double without end=)"; finish; }
echo 4096 >$T/buffer_size_kb
ncpu=$(grep -c ^processor /proc/cpuinfo)
say "vCPUs: $ncpu, kernel $(uname -r)"
j() { jget /tmp/l.json "$1"; }
# the kernel's own trace: events of one name, all or of one PASID
kt() { grep -c " $1: dev=iopf0 pasid=$2\$" $S/trace.txt; }
kall() { grep -c " $1: " $S/trace.txt; }

for round in 1 2 3; do
	group "round$round"
	trace_on smmu:io_fault_entry smmu:io_fault_exit
	start_xp /tmp/l.json latency --from tracepoint:smmu:io_fault_entry \
		--to tracepoint:smmu:io_fault_exit --key pasid --json || finish
	pids=
	# overlapping faults of PASID 2 from three threads, ends in task context
	for t in 1 2 3; do
		(echo "pasid=2 count=13 delay_us=300" >$D/fire) &
		pids="$pids $!"
	done
	(echo "pasid=1 count=21 delay_us=1500 end=hardirq" >$D/fire) &
	pids="$pids $!"
	(echo "pasid=3 count=21 delay_us=1500 end=softirq" >$D/fire) &
	pids="$pids $!"
	(echo "pasid=4 count=21 delay_us=1500 end=work" >$D/fire) &
	pids="$pids $!"
	for p in $pids; do wait $p || bad "a fire command failed"; done
	stop_xp; xrc=$?
	trace_off
	expect_eq "xputrace exit status" 0 $xrc
	E=$(kall io_fault_entry) X=$(kall io_fault_exit)
	expect_eq "the kernel's trace: entries" 102 "$E"
	expect_eq "the kernel's trace: exits" 102 "$X"
	S0=$(j starts) P=$(j pairs) O=$(j still_open) SS=$(j starts_skipped) ES=$(j ends_skipped)
	U=$(j unpaired_end_skipped) NK=$(j inflight_full) TD=$(j too_deep) OE=$(j ends_without_start)
	IN=$(j ends_inside_start) KM=$(j drops.kernel_missed) KE=$(j ends) RB=$(j drops.ringbuf)
	RS=$(j starts_from_args) RE=$(j ends_from_args) BAD=$(j ended_before_start)
	say "figures: kernel entries $E exits $X; xputrace starts $S0 pairs $P still_open $O" \
		"starts_skipped $SS ends_skipped $ES unpaired_end_skipped $U inflight_full $NK" \
		"too_deep $TD ends_without_start $OE ends_inside_start $IN ends_in_kernel $KE" \
		"ringbuf_drops $RB kernel_missed $KM starts_from_args $RS ends_from_args $RE" \
		"ended_before_start $BAD"
	case $SS$ES in *null*) bad "skips not counted on this kernel (starts $SS, ends $ES)"; continue ;; esac
	expect_eq "every entry a start, or a start skipped or refused" "$E" $((S0 + SS + NK + TD))
	expect_eq "pairs that ended before they started" 0 "$BAD"
	expect_eq "every pair the kernel made reached the report" "$KE" $((P + RB))
	expect_eq "every exit a pair, or an end counted by cause" "$X" $((KE + ES + OE + IN))
	expect_eq "still open, with every exit in the kernel's trace" 0 "$O"
	expect_eq "every start paired, or its end counted as skipped" "$S0" $((P + U))
	if [ "$SS" -eq 0 ] && [ "$ES" -eq 0 ]; then
		for p in 1 2 3 4; do
			expect_eq "pasid=$p: pairs = the kernel's exits" "$(kt io_fault_exit $p)" \
				"$(j "keys[label=pasid=$p].count")"
		done
	else
		say "the kernel skipped $SS starts and $ES ends: per-PASID counts not compared"
	fi
done
cat $D/contexts
finish
