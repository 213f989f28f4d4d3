# lab-cpus: 1 2
# lab-cpus-old: 1
# xputrace fdinfo against the mock GPU's own accounting on the real
# drm_sched: the mock, loaded with render_node=1, is a DRM driver with a
# real render node (/dev/dri/renderD<N>, major 226, found in /sys/class/drm
# by its parent device "mockgpu"); its files' fdinfo has drm-usage-stats
# (each ring's execution time of the file's jobs, its buffers), written
# through the DRM core's drm_show_fdinfo on 7.x and by the driver's own
# show_fdinfo on 6.1. The render node takes the submit as a DRM driver
# ioctl (mockapi) and the write() commands (mocksubmit). Two processes in
# two cgroups submit known jobs while sched and fdinfo run side by side: per process,
# fdinfo's busy seconds agree within 2 % with the module's own clock for the
# same jobs (debugfs jobs: the ring's execution time); per ring with sched's
# busy time, and per cgroup with serve's drm_sched series, within 2 % (the
# figures are printed; on the render node, 2026-11-27, 3-4 runs a kernel:
# per process within 0.0002 % of the module's clock, against drm_sched
# within 0.023 % on 6.1 and 0.16 % on 7.3, one vCPU or two); memory is
# exact; the process that exits while fdinfo runs keeps what it used; serve
# shows both sources of the same jobs, each series on its own, and `top
# --sources` side by side (1.6 s of one process's jobs: drm_sched 1.599-1.601 s,
# fdinfo 1.601-1.603 s, the module's clock 1.601-1.602 s on both kernels). Then the
# module unloads with its render node, and the kernel warned of nothing.
need_xputrace
load mockgpu render_node=1 || finish
CG=/sys/fs/cgroup
mkdir -p $CG
grep -q ' cgroup2 ' /proc/mounts || mount -t cgroup2 none $CG || { bad "mount cgroup2"; finish; }
mkdir -p $CG/fa $CG/fb
NODE=
for n in /sys/class/drm/renderD*; do
	[ "$(basename "$(readlink "$n/device")")" = mockgpu ] && NODE=/dev/dri/${n##*/}
done
J=/sys/kernel/debug/mockgpu/jobs

group node
say "0. the mock GPU's render node: $NODE"
[ -n "$NODE" ] || { bad "mockgpu render_node=1 made no render node in /sys/class/drm"; finish; }
expect_eq "$NODE: a DRM character device (major)" 226 "$(cut -d: -f1 /sys/class/drm/${NODE##*/}/dev)"
check "$NODE: DRM_IOCTL_VERSION names the driver mockgpu" drmioctl "$NODE" version=1 expect=mockgpu
xputrace doctor --json >$S/doctor.json 2>$S/doctor.err
expect_eq "doctor: $NODE's DRM driver" mockgpu "$(jget $S/doctor.json "nodes[path=$NODE].driver")"
export MOCKGPU_DEV=$NODE
echo >$J
mockapi -n 3 -k 4 -d 500 >$S/api.out & PAPI=$!
wait $PAPI; ra=$?
expect_eq "mockapi on $NODE (driver ioctl): status, output" "0 calls 3 jobs 12" "$ra $(cat $S/api.out)"
expect_eq "mockapi's jobs in the module's log" 12 "$(awk -v p=$PAPI '!/^#/ && $4 == p' $J | wc -l)"
mocksubmit -q -i 2000 'alloc=64' 'ring=1 dur_us=1000 count=2' 'sync' & PH=$!
sleep 1
for fd in /proc/$PH/fd/*; do
	[ "$(readlink $fd)" = "$NODE" ] && grep '^drm-' /proc/$PH/fdinfo/${fd##*/} >$S/fdi.txt
done
wait $PH
cat $S/fdi.txt
check "the render node's fdinfo: drm-driver mockgpu" grep -Eq '^drm-driver:[[:space:]]+mockgpu$' $S/fdi.txt
check "... a drm-client-id" grep -Eq '^drm-client-id:[[:space:]]+[0-9]+$' $S/fdi.txt
# (about their 2 ms, over 1.5: under emulation a job's timer fires late, by milliseconds on a busy host)
check "... the rings' busy time (2 jobs of 1 ms on ring 1)" \
	awk '$1 == "drm-engine-mock-ring1:" && $3 == "ns" && $2 >= 1500000 { ok = 1 } END { exit !ok }' $S/fdi.txt
check "... its buffer, 64 KiB" grep -Eq '^drm-resident-system:[[:space:]]+64 KiB$' $S/fdi.txt
# the module's execution time (column 14) of a process's jobs, in ns
mod() { awk -v p=$1 '!/^#/ && $4 == p { s += $14 } END { printf "%.0f", s }' $J; }
# |A-B| <= PCT% of B
within() { awk -v a=$1 -v b=$2 -v p=$3 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= p * b) }'; }

group sched
say "1. two processes in two cgroups; A exits while fdinfo runs on, B is open at the end"
echo >$J
start_xp $S/s.json sched --json || finish
SPID=$XPID
start_xp $S/f.json fdinfo --json || finish
FPID=$XPID
# each process moves itself into its cgroup, allocates, submits, waits for
# its jobs, and holds its file a while (-i) so that a sample sees them all
sh -c "echo \$\$ >$CG/fa/cgroup.procs; exec mocksubmit -s -q -i 1500 'alloc=4096' 'ring=0 dur_us=4000 count=60'" &
PA=$!
sh -c "echo \$\$ >$CG/fb/cgroup.procs; exec mocksubmit -s -q -i 8000 'alloc=1024' 'alloc=512' 'ring=0 dur_us=3000 count=50'" &
PB=$!
wait $PA; ra=$?
sleep 1.5	# fdinfo samples again after A is gone; B still holds its file
kill -INT $FPID; wait $FPID; rf=$?
kill -INT $SPID; wait $SPID; rs=$?
kill $PB 2>/dev/null; wait $PB
expect_eq "submitter A's, fdinfo's, sched's status" "0 0 0" "$ra $rf $rs"
cat $S/f.json; echo
for p in A B; do
	eval pid=\$P$p
	f=$(awk -v x=$(jget $S/f.json "clients[pid=$pid].engines[engine=mock-ring0].busy_s") 'BEGIN { printf "%.0f", x * 1e9 }')
	m=$(mod $pid)
	s=$(jget $S/f.json "clients[pid=$pid].cgroup")
	say "process $p: fdinfo $f ns, the module's clock $m ns"
	check "process $p: fdinfo busy $f ns within 2% of the module's $m ns" within "$f" "${m:-0}" 2
	expect_eq "process $p: cgroup" /f$(echo $p | tr AB ab) "$s"
done
f=$(awk -v x=$(jget $S/f.json "devices[driver=mockgpu].engines[engine=mock-ring0].busy_s") 'BEGIN { printf "%.0f", x * 1e9 }')
sc=$(jget $S/s.json "rings[ring=mock-ring0].busy_ns")
say "mock-ring0: fdinfo $f ns, sched $sc ns"
check "mock-ring0: fdinfo busy $f ns within 2% of sched's $sc ns" within "$f" "${sc:-0}" 2
expect_eq "A's memory (resident, exact)" 4194304 "$(jget $S/f.json "clients[pid=$PA].memory[region=system].resident")"
expect_eq "A's memory (total, exact)" 4194304 "$(jget $S/f.json "clients[pid=$PA].memory[region=system].total")"
expect_eq "B's memory (resident, exact)" 1572864 "$(jget $S/f.json "clients[pid=$PB].memory[region=system].resident")"
expect_eq "A, exited, is gone and kept" true "$(jget $S/f.json "clients[pid=$PA].gone")"
expect_eq "B is open at the end" false "$(jget $S/f.json "clients[pid=$PB].gone")"
expect_eq "device memory: B's alone (A's is gone)" 1572864 "$(jget $S/f.json "devices[driver=mockgpu].memory[region=system].resident")"
expect_eq "unreadable processes (root)" 0 "$(jget $S/f.json unreadable_processes)"

group text
say "2. the text summary (README's example): two rings, one process exits before the end"
start_xp $S/f.txt fdinfo -d 4 || finish
sh -c "echo \$\$ >$CG/fa/cgroup.procs; exec mocksubmit -s -q -i 1200 'alloc=2048' 'ring=0 dur_us=5000 count=40' 'ring=1 dur_us=2000 count=30'" &
PA=$!
sh -c "echo \$\$ >$CG/fb/cgroup.procs; exec mocksubmit -s -q -i 6000 'alloc=1024' 'ring=0 dur_us=3000 count=30'" &
PB=$!
wait $XPID; rt=$?
wait $PA; kill $PB 2>/dev/null; wait $PB
cat $S/f.txt
expect_eq "fdinfo -d 4 status" 0 $rt
check "text: the mock GPU's device line" grep -q '^-  *mockgpu  *2  mock-ring0' $S/f.txt
check "text: A gone, its time kept" grep -Eq "^$PA\* +mocksubmit .* mock-ring1 +[0-9]+\.[0-9]*[1-9][0-9]* .* /fa\$" $S/f.txt
check "text: B open" grep -Eq "^$PB +mocksubmit .* /fb\$" $S/f.txt

group serve
say "3. serve: sched's and fdinfo's series of the same jobs in two cgroups, each by its source"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
echo >$J
start_xp $S/serve.out serve --listen 127.0.0.1:9465 sched fdinfo || finish
check "serve runs sched and fdinfo" grep -q 'sched (.*), fdinfo (sampled)' $S/serve.out.err
sleep 1.2	# fdinfo's first sample is the baseline
# each idles 3 s after its jobs with its file open: the sampler (each second,
# later on a loaded emulated machine) reads its last counts
sh -c "echo \$\$ >$CG/fa/cgroup.procs; exec mocksubmit -s -q -i 3000 'alloc=3072' 'ring=0 dur_us=4000 count=50'" &
PA=$!
sh -c "echo \$\$ >$CG/fb/cgroup.procs; exec mocksubmit -s -q -i 3000 'ring=0 dur_us=3000 count=40'" &
PB=$!
wait $PA; ra=$?
wait $PB || ra=$?
# a sample after A is gone: its memory no longer held (at most 10 s)
i=0
while wget -q -O $S/m.txt http://127.0.0.1:9465/metrics; rw=$?; [ $i -lt 20 ] &&
	! grep -q '^xputrace_gpu_memory_bytes{cgroup="/fa",device="mockgpu",driver="mockgpu",region="system",kind="resident"} 0$' $S/m.txt; do
	sleep 0.5; i=$((i + 1))
done
stop_xp; rs=$?
expect_eq "submitter, wget, serve status" "0 0 0" "$ra $rw $rs"
grep -E '^xputrace_gpu_(busy|memory)' $S/m.txt
g() { awk -v k="$1" 'index($0, k) == 1 { print $2 }' $S/m.txt; }
for c in a b; do
	eval pid=\$P$(echo $c | tr ab AB)
	xs=$(g "xputrace_gpu_busy_seconds_total{cgroup=\"/f$c\",ring=\"mock-ring0\",source=\"drm_sched\"}")
	xf=$(g "xputrace_gpu_busy_seconds_total{cgroup=\"/f$c\",device=\"mockgpu\",driver=\"mockgpu\",engine=\"mock-ring0\",source=\"fdinfo\"}")
	m=$(awk -v m=$(mod $pid) 'BEGIN { printf "%.6f", m / 1e9 }')
	say "serve /f$c: fdinfo $xf s, drm_sched $xs s, the module's clock $m s"
	check "serve /f$c: fdinfo's $xf s within 2% of the module's $m s" within "${xf:-0}" "$m" 2
	check "serve /f$c: fdinfo's $xf s within 2% of drm_sched's $xs s (two series)" within "${xf:-0}" "${xs:-0}" 2
done
expect_eq "serve: /fa's memory gauge once A is gone" 0 \
	"$(g 'xputrace_gpu_memory_bytes{cgroup="/fa",device="mockgpu",driver="mockgpu",region="system",kind="resident"}')"

group top
say "4. top --sources: drm_sched's and fdinfo's busy share of the same process side by side"
start_xp $S/top.txt top --sources -i 1 -d 6 sched fdinfo || finish
sleep 1.2	# fdinfo's first sample is the baseline
sh -c "echo \$\$ >$CG/fa/cgroup.procs; exec mocksubmit -s -q -i 2500 'ring=0 dur_us=8000 count=200'" &
PA=$!
wait $PA; ra=$?
wait $XPID; rt=$?
cat $S/top.txt
expect_eq "submitter, top status" "0 0" "$ra $rt"
# A's busy seconds by each source (a row's share times its refresh's length), and the
# difference column checked row by row
awk -v p=$PA '
/^xputrace top / { dt = $4; next }
/^PID / { for (i = 1; i <= NF; i++) col[$i] = i; next }
$1 == p && col["gpu_busy_seconds:drm_sched%"] {
	s = $col["gpu_busy_seconds:drm_sched%"]; f = $col["gpu_busy_seconds:fdinfo%"]; d = $col["gpu_busy_seconds:fdinfo-drm_sched%"]
	S += s * dt / 100; F += f * dt / 100; n++
	if ((f - s) - d > 0.11 || d - (f - s) > 0.11) bad++
}
END { printf "%d %.4f %.4f %d\n", n, S, F, bad }' $S/top.txt >$S/top.sum
read nrows ssec fsec bad <$S/top.sum
m=$(awk -v m=$(mod $PA) 'BEGIN { printf "%.4f", m / 1e9 }')
say "top: A in $nrows refreshes, drm_sched $ssec s, fdinfo $fsec s, the module's clock $m s"
check "top --sources: A's rows have both sources' columns" [ "${nrows:-0}" -ge 1 ]
check "top --sources: the difference column is fdinfo's less drm_sched's in every row" [ "${bad:-1}" -eq 0 ]
# shares are printed to 0.1 %: a refresh's rounding is 0.05 % of its length
check "top --sources: fdinfo's $fsec s within 2% of drm_sched's $ssec s" within "${fsec:-0}" "${ssec:-0}" 2
check "top --sources: drm_sched's $ssec s within 2% of the module's $m s" within "${ssec:-0}" "$m" 2

group unload
say "5. the render node goes with the module; the kernel warned of nothing"
rmmod mockgpu; ru=$?
expect_eq "rmmod mockgpu, its render node registered" 0 $ru
check "$NODE is gone from /sys/class/drm" [ ! -e /sys/class/drm/${NODE##*/} ]
dmesg | grep -E 'mockgpu|WARNING|BUG' >$S/dmesg.txt
cat $S/dmesg.txt
expect_eq "kernel warnings" 0 "$(grep -cE 'WARNING|BUG' $S/dmesg.txt)"
finish
