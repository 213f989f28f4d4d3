# xputrace sched while the mock GPU is unloaded mid-trace, against the mock GPU on the real drm_sched, on whichever
# gpu_scheduler generation this kernel has. Every assertion compares with
# what this scenario submitted, or with the module's own clock for the
# same jobs (debugfs jobs: run_job -> fence signal), never with the
# durations asked for: under emulation timers fire late.
need_xputrace
load mockgpu || finish
J=/sys/kernel/debug/mockgpu/jobs
R0=mock-ring0 R1=mock-ring1

# median of column COL of the module's job log for ring RING
mod_median() { awk -v r=$1 -v c=$2 '!/^#/ && $2==r { print $c }' $J | median 0; }
within() { # A B PCT: |A-B| <= PCT% of B
	awk -v a=$1 -v b=$2 -v p=$3 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= p * b) }'
}

say "the module unloaded mid-trace"
start_xp /tmp/rm.json sched --json || finish
mocksubmit -q 'ring=0 dur_us=50000 count=30' &
PK=$!
sleep 0.5
kill -KILL $PK; wait $PK 2>/dev/null
rmmod mockgpu
expect_eq "rmmod mockgpu" 0 $?
sleep 0.3
check "xputrace still running after rmmod" kill -0 $XPID
stop_xp
expect_eq "xputrace exit status after rmmod" 0 $?
done=$(jget /tmp/rm.json rings[ring=$R0].jobs) inc=$(jget /tmp/rm.json rings[ring=$R0].incomplete)
q=$(jget /tmp/rm.json rings[ring=$R0].queued)
expect_eq "queued" 30 "$q"
check "some jobs never completed ($inc incomplete, $done done)" [ "$inc" -ge 1 ]
expect_eq "done + incomplete" 30 $((done + inc))
cat /tmp/rm.json; echo
finish
