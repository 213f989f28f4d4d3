# xputrace serve on the mock GPU: two cgroups submit known jobs on one ring;
# the busy seconds per cgroup that /metrics serves agree within 5 % with the
# mock GPU's own accounting of the same jobs (its ring execution time per
# job, summed per process), the jobs exactly, and `serve` alone picks sched
# because this kernel has its events. busybox wget reads /metrics.
need_xputrace
load mockgpu || finish
J=/sys/kernel/debug/mockgpu/jobs
CG=/sys/fs/cgroup
mkdir -p $CG
grep -q ' cgroup2 ' /proc/mounts || mount -t cgroup2 none $CG || { bad "mount cgroup2"; finish; }
mkdir -p $CG/ga $CG/gb
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
echo >$J
start_xp $S/serve.out serve --listen 127.0.0.1:9464 || finish
cat $S/serve.out.err
check "serve picked ioctl and sched by itself" grep -q '^Tracing ioctl (.*), sched (' $S/serve.out.err
# each process moves itself into its cgroup, then submits
sh -c "echo \$\$ >$CG/ga/cgroup.procs; exec mocksubmit -s -q 'ring=0 dur_us=3000 count=20'" & PA=$!
sh -c "echo \$\$ >$CG/gb/cgroup.procs; exec mocksubmit -s -q 'ring=0 dur_us=2000 count=15'" & PB=$!
wait $PA; ra=$?
wait $PB; rb=$?
sleep 0.6	# a record reaches serve within its 0.5 s tick
wget -q -O $S/m.txt http://127.0.0.1:9464/metrics; rw=$?
stop_xp; rs=$?
expect_eq "submitters, wget, serve status" "0 0 0 0" "$ra $rb $rw $rs"
grep -E '^xputrace_(gpu|drops|events)' $S/m.txt | grep -v _bucket
# the mock GPU's log: where its ring started each job against when the scheduler ran it
awk '!/^#/ { printf "job %s pid %s run %d start %d signal %d exec %d\n", $1, $4, $10 % 1000000000, $11 % 1000000000, $12 % 1000000000, $14 }' $J
m() { awk -v k="$1" 'index($0, k) == 1 { print $2 }' $S/m.txt; }
# the mock GPU's ring execution time (column 14) of each process's jobs, in seconds
mod() { awk -v p=$1 '!/^#/ && $4 == p { s += $14 } END { printf "%.6f", s / 1e9 }' $J; }
near5() { awk -v a=$1 -v b=$2 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.05 * b) }'; }
expect_eq "jobs of cgroup ga" 20 "$(m 'xputrace_gpu_jobs_total{cgroup="/ga",ring="mock-ring0"}')"
expect_eq "jobs of cgroup gb" 15 "$(m 'xputrace_gpu_jobs_total{cgroup="/gb",ring="mock-ring0"}')"
# a job whose done event the kernel skipped (uncounted before 6.7) gives its
# time to the job after it, maybe the other cgroup's: serve says how many
unseen=$(m 'xputrace_gpu_jobs_done_unseen_total{ring="mock-ring0"}')
for g in "ga $PA" "gb $PB"; do
	set -- $g
	x=$(m "xputrace_gpu_busy_seconds_total{cgroup=\"/$1\",ring=\"mock-ring0\"}") y=$(mod $2)
	if [ -n "$unseen" ] && [ "$unseen" != 0 ]; then
		say "cgroup $1: busy ${x} s, the mock GPU's ${y} s: not compared, $unseen done events lost (said by serve)"
	else
		check "cgroup $1: busy ${x} s within 5 % of the mock GPU's ${y} s for its process" near5 "$x" "$y"
	fi
done
x=$(m 'xputrace_gpu_ring_busy_seconds_total{ring="mock-ring0"}')
y=$(awk '!/^#/ && $2 == 0 { s += $14 } END { printf "%.6f", s / 1e9 }' $J)
check "mock-ring0 busy ${x} s within 5 % of the mock GPU's ${y} s" near5 "$x" "$y"
expect_eq "run-time histogram: every job" 35 "$(m 'xputrace_gpu_job_run_seconds_count{ring="mock-ring0"}')"
rmdir $CG/ga $CG/gb
finish
