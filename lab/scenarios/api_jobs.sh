# xputrace api joined with sched's jobs on the mock GPU, on the real
# drm_sched of either gpu_scheduler generation. mockapi's mockSubmit()
# issues one submit ioctl per job on /dev/mockgpu from the caller's thread
# (the queue event fires there); the ring runs the jobs one after another
# and signals them later, after the call returned. Checked: each call joined
# with exactly its K ioctls and K jobs, the jobs the client submits by
# write() outside the call counted as outside, none lost, and call -> last
# job done against the client's clock at the call and the module's at the
# last job's signal; the same from a recording of api and sched, and the
# export's submit arrows start inside the call on the caller's track.
need_xputrace
load mockgpu || finish
J=/sys/kernel/debug/mockgpu/jobs
FN=/lab/bin/mockapi:mockSubmit
N=30 K=3 O=2 D=3000	# calls, jobs per call, jobs outside each call, us per job

# per call, from the client's clock just before it (mockapi -v: "call T H")
# to the module's signal of its last job H (the same CLOCK_MONOTONIC)
module_calls() { awk 'FNR == NR { if ($1 == "call") t[$3] = $2; next }
	!/^#/ && ($1 in t) { print $12 - t[$1] }' $1 $J; }

# checks of one api summary (JSON document in $1), labelled $2; mockapi -v's output in $3
check_summary() {
	local s=$1 w=$2 f="functions[function=mockSubmit]"
	a() { jget $s "$1"; }
	expect_eq "$w: calls" $N "$(a $f.calls)"
	expect_eq "$w: ioctls" $((N * K)) "$(a $f.ioctls)"
	expect_eq "$w: jobs joined" $((N * K)) "$(a $f.jobs)"
	expect_eq "$w: most jobs in a call" $K "$(a $f.max_jobs_per_call)"
	expect_eq "$w: calls without a job" 0 "$(a $f.calls_without_job)"
	expect_eq "$w: calls timed to their last job's done" $N "$(a $f.call_to_done_ns.count)"
	expect_eq "$w: calls never done" 0 "$(a $f.calls_never_done)"
	expect_eq "$w: jobs queued" $((N * (K + O))) "$(a jobs_queued)"
	expect_eq "$w: jobs outside calls" $((N * O)) "$(a jobs_outside_calls)"
	expect_eq "$w: jobs let go, lost; calls unfollowed, open at the end" "0 0 0 0" \
		"$(a jobs_let_go) $(a jobs_lost) $(a calls_unfollowed) $(a calls_open_at_end)"
	expect_eq "$w: drops" 0 "$(a drops.total)"
	# The tracer's span starts at the call's entry, just after the client
	# reads its clock (a uprobe hit lies between), and ends at the done
	# event, just after the module stamps the signal: tens of us under
	# emulation against K x D us, within median_vs_module's 10 % (+1/16:
	# the summary's p50 is interpolated in its log-linear buckets).
	median_vs_module "$w: call -> last job done" "$(a $f.call_to_done_ns.p50)" "$(a $f.call_to_done_ns.count)" \
		$((K * D * 1000)) $(module_calls $3)
}

say "1. live: api follows sched's events itself (one ring buffer)"
echo >$J
start_xp /tmp/a.json api --lib $FN --device /dev/mockgpu --stream --json || finish
check "it says it follows the jobs" grep -q 'their DRM scheduler jobs' /tmp/a.json.err
mockapi -n $N -k $K -d $D -o $O -v >/tmp/m.out
rm=$?
stop_xp
expect_eq "xputrace exit status" 0 $?
expect_eq "mockapi status" 0 $rm
tail -n 1 /tmp/a.json >/tmp/a.sum
check_summary /tmp/a.sum live /tmp/m.out
grep '^{"t_ns"' /tmp/a.json >/tmp/a.calls
expect_eq "stream: calls" $N "$(wc -l </tmp/a.calls)"
expect_eq "stream: calls with $K ioctls and $K jobs on mock-ring0" $N \
	"$(grep -c "\"ioctls\":$K,.*\"jobs\":$K,\"job_ring\":\"mock-ring0\"" /tmp/a.calls)"
head -n 2 /tmp/a.calls
xputrace api --lib $FN --device /dev/mockgpu -d 0.1 >/dev/null 2>&1 # loads and unloads cleanly

say "2. the text summary and stream"
echo >$J
start_xp /tmp/t.txt api --lib $FN --device /dev/mockgpu --stream --no-hist || finish
mockapi -n 3 -k $K -d $D -o $O >/dev/null
stop_xp
cat /tmp/t.txt
# a stream line is printed at the call's return: its jobs (3 ms each) are
# mostly still running then, but a call stalled by a loaded host may already
# have seen its first ones done
expect_eq "stream lines with $K jobs" 3 \
	"$(grep -c -E "\| jobs $K on mock-ring0, ([1-$K] not done|done \+)" /tmp/t.txt)"
check "the summary's jobs line" grep -q "jobs: $K.00/call (max $K, 0 calls none), call->done p50" /tmp/t.txt

say "3. record api sched, report, export"
echo >$J
start_xp /tmp/rec.out record -o /tmp/r.xpt --lib $FN --device /dev/mockgpu api sched || finish
mockapi -n $N -k $K -d $D -o $O -v >/tmp/r.out
sleep 0.2
stop_xp
expect_eq "record exit status" 0 $?
xputrace report /tmp/r.xpt api --json >/tmp/r.sum 2>/tmp/r.err
expect_eq "report exit status" 0 $?
cat /tmp/r.err
check_summary /tmp/r.sum report /tmp/r.out
xputrace report /tmp/r.xpt api --no-hist
xputrace export --perfetto /tmp/r.xpt --format json -o /tmp/r.trace 2>/tmp/e.err
expect_eq "export exit status" 0 $?
# the call slices and sched's submit marks (zero length) on the callers' tracks
grep -o '"ph":"X","pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,"dur":[0-9.]*,"cat":"\(api\|gpu_submit\)"' /tmp/r.trace |
	tr '":,' '   ' | awk '{ tid = $6; ts = $8; dur = $10; cat = $12
		if (cat == "api") { n[tid]++; a[tid, n[tid]] = ts; b[tid, n[tid]] = ts + dur; next }
		sub_ts[++m] = ts; sub_tid[m] = tid }
	END { for (i = 1; i <= m; i++) { t = sub_tid[i]; hit = 0
			for (k = 1; k <= n[t]; k++) if (sub_ts[i] >= a[t, k] && sub_ts[i] <= b[t, k]) hit = 1
			if (hit) in_call++; else outside++ }
		print in_call + 0, outside + 0 }' >/tmp/flows
expect_eq "export: submit arrows starting inside a mockSubmit slice, outside any" "$((N * K)) $((N * O))" "$(cat /tmp/flows)"
expect_eq "export: flow starts (one per job)" $((N * (K + O))) "$(grep -o '"ph":"s"' /tmp/r.trace | wc -l)"
finish
