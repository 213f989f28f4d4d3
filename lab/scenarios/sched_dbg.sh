need_xputrace
load mockgpu || finish
xputrace sched --json --stream >/tmp/a.json 2>/tmp/a.err &
XPID=$!
sleep 1
trace_on gpu_scheduler
mocksubmit -s -q 'ring=0 dur_us=200 count=60' &
mocksubmit -s -q 'ring=0 dur_us=200 count=40' &
wait %2 %3 2>/dev/null; wait
trace_off
kill -INT $XPID; wait $XPID
tail -1 /tmp/a.json | head -c 600; echo
grep -c '"event":"job"' /tmp/a.json
grep -o '"job_id":[0-9]*' /tmp/a.json | sort -t: -k2 -n | tr '\n' ' '; echo
grep -E "drm_sched_job:|drm_run_job|process_job" /tmp/trace.txt | awk '{print $1, $4, $5, $6, $7, $8, $9, $10}' | head -120
