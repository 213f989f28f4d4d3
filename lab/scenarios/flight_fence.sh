# lab-cpus: 1 2
# lab-cpus-old: 1
# record --last --trigger fence:over=T on the mock GPU: among jobs of 2 ms each
# waited for by its submitter (mocksubmit -t, `sync`), one of 50 ms makes a
# wait over 40 ms and one file; its window (1 s before, 1 s after) covers the
# whole submission, so the file must hold what a plain `record` of the same
# fences holds: the same records, fences made and waited for.
need_xputrace
load mockgpu || finish
say "record and record --last at once: 10 waited jobs of 2 ms, one of 50 ms, 10 of 2 ms"
flight_start fence fence:over=40ms:mocksubmit 1 1 || finish
mocksubmit -s -q -t -n 10 'ring=0 dur_us=2000' > /dev/null && mocksubmit -s -q -t -n 1 'ring=0 dur_us=50000' > /dev/null &&
	mocksubmit -s -q -t -n 10 'ring=0 dur_us=2000' > /dev/null
expect_eq "submitters' status" 0 $?
flight_stop fence fence-over fence:over=40ms:mocksubmit 1.7
flight_same_records
check "a plain recording of fences made" [ -n "$(jget /tmp/full.json fences.created)" ]
for k in fences.created waits.count; do
	expect_eq "file = plain recording: $k" "$(jget /tmp/full.json "$k")" "$(jget /tmp/fl.json "$k")"
done
xputrace report $F fence | head -12
finish
