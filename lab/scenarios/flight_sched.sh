# lab-cpus: 1 2
# lab-cpus-old: 1
# record --last --trigger sched:run=T on the mock GPU: a job held 50 ms among
# 2 ms ones makes one file; its window (1 s before, 1 s after) covers the
# whole submission, so the file must hold what a plain `record` of the same
# jobs holds: the same number of records, the same jobs per ring, the long
# job's run time. busybox only: the JSON is read with jget.
need_xputrace
load mockgpu || finish
say "record and record --last at once: 100 jobs of 2 ms, one of 50 ms, 100 of 2 ms on ring 0"
flight_start sched sched:run=40ms 1 1 || finish
mocksubmit -s -q 'ring=0 dur_us=2000 count=100' && mocksubmit -s -q 'ring=0 dur_us=50000 count=1' &&
	mocksubmit -s -q 'ring=0 dur_us=2000 count=100'
expect_eq "submitters' status" 0 $?
flight_stop sched sched-run sched:run=40ms 1.7
f() { jget /tmp/fl.json "$1"; }
g() { jget /tmp/full.json "$1"; }
flight_same_records
for k in jobs incomplete "rings[ring=mock-ring0].jobs" "rings[ring=mock-ring0].queue_delay_ns.count"; do
	expect_eq "file = plain recording: $k" "$(g "$k")" "$(f "$k")"
done
expect_eq "jobs (what was submitted)" 201 "$(f jobs)"
MAX=$(f "rings[ring=mock-ring0].exec_ns.max")
check "the long job ran 45 ms or more ($MAX ns)" [ "$MAX" -ge 45000000 ]
xputrace export --perfetto $F --format json -o /tmp/fl.pf.json 2>/dev/null
expect_eq "export: job slices" "$(f jobs)" "$(grep -o '"cat":"gpu_job"' /tmp/fl.pf.json | wc -l)"
finish
