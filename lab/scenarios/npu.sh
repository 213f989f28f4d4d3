# xputrace npu. Without intel_vpu loaded (6.1 has no accel drivers) it says
# so in one line. On 7.3, with Debian's real intel_vpu.ko (no NPU needed to
# load it): the multi-attach takes every ivpu_* function the kernel lists in
# available_filter_functions, less the ones it refuses (listed). With the
# test double (lab/modules/ivpu_double, loaded as intel_vpu): its vpu
# tracepoints have the real module's field layout, and the calls per
# function, category, process and device, the jobs, JSM messages and PM
# transitions are exactly what it did; the latencies are within 10 % of its
# own clock, which imposes known delays; -i splits the IPC messages by
# interval; --baseline reports the ratio that moved.
# lab-modules: intel_vpu
need_xputrace
KREL=$(uname -r)
REAL=$(find /lib/modules/$KREL/kernel -name 'intel_vpu.ko' 2>/dev/null | head -1)
DOUBLE=/lib/modules/$KREL/extra/intel_vpu.ko
AFF=$T/available_filter_functions
D=/sys/kernel/debug/intel_vpu_double

group no_module
xputrace npu -d 1 >$S/nomod.out 2>$S/nomod.err; rc=$?
cat $S/nomod.err
expect_eq "exit status without an NPU driver" 1 $rc
expect_eq "one line on stderr" 1 "$(wc -l <$S/nomod.err)"
expect_eq "it says no NPU driver is loaded" 1 "$(grep -c 'no NPU driver is loaded: neither intel_vpu (Intel NPU) nor amdxdna (AMD NPU)' $S/nomod.err)"
expect_eq "nothing on stdout" 0 "$(wc -c <$S/nomod.out)"
xputrace doctor >$S/doctor.txt 2>&1
expect_eq "doctor says why" 1 "$(grep -c '^  npu .*no NPU driver is loaded' $S/doctor.txt)"
# amdxdna, alone: lab/scenarios/npu_xdna.sh

# the ivpu_* functions of the loaded intel_vpu that ftrace offers, each once
offered() { awk '$2 == "[intel_vpu]" && $1 ~ /^ivpu_/ { print $1 }' $AFF | sort -u | wc -l; }
# the field lines of a vpu event's format
fields() { grep 'field:' $T/events/vpu/$1/format | grep -v 'field:unsigned short common_type\|common_' ; }

if [ -n "$REAL" ]; then
	group real_module
	for d in $(modinfo "$REAL" | sed -n 's/^depends: *//p' | tr ',' ' '); do modprobe $d || bad "modprobe $d"; done
	if insmod "$REAL"; then
		n=$(offered)
		say "the real intel_vpu offers $n ivpu_* functions"
		check "it offers some" [ "$n" -gt 0 ]
		for e in job jsm pm; do fields $e >$S/real_$e.fmt; done
		cat $S/real_jsm.fmt
		xputrace npu -j -d 1 >$S/real.json 2>$S/real.err
		expect_eq "npu on the real module: exit status" 0 $?
		cat $S/real.err
		J=$S/real.json
		expect_eq "offered = the module's ivpu_* functions in available_filter_functions" $n "$(jget $J attach.offered)"
		a=$(jget $J attach.attached) r=$(jget $J attach.refused_count)
		expect_eq "attached + refused = offered" $n $((a + r))
		say "attached $a with $(jget $J attach.hook), refused $r: $(jget $J attach.refused)"
		[ "$r" -gt 64 ] || expect_eq "every refused one listed with why" $r "$(jget -n $J attach.refused)"
		expect_eq "the vpu tracepoints attached" true "$(jget $J attach.tracepoints)"
		expect_eq "the function table lists what was attached" $a "$(jget -n $J functions)"
		rmmod intel_vpu || bad "rmmod the real intel_vpu"
	else
		bad "insmod $REAL"
	fi
fi

[ -f "$DOUBLE" ] || { bad "no test double at $DOUBLE"; finish; }
group double
insmod $DOUBLE || { bad "insmod $DOUBLE"; finish; }
n=$(offered)
if [ -n "$REAL" ]; then
	for e in job jsm pm; do
		fields $e >$S/double_$e.fmt
		if cmp -s $S/real_$e.fmt $S/double_$e.fmt; then ok "vpu:$e: the double's fields are the real module's"
		else bad "vpu:$e: fields differ from the real module's: $(diff $S/real_$e.fmt $S/double_$e.fmt | tr '\n' ' ')"; fi
	done
fi
lat() { awk -v f=$1 '$1 == f { print $3, $2 }' $D/lat; }	# sum count

start_xp $S/d.json npu -j --latency ivpu_submit_ioctl || finish
P1=$XPID
cp /lab/bin/writeto $S/npuapp
$S/npuapp $D/trigger open boot 'bo_create 3 64' 'submit 4' 'get_param 2' 'suspend 20' close &
APP=$!
wait $APP; rc=$?
i=0; while [ $i -lt 100 ]; do
	[ "$(cnt $D/counts ivpu_ipc_receive)" = 5 ] && [ "$(lat job | cut -d' ' -f2)" = 4 ] && break
	sleep 0.1; i=$((i + 1))
done
sleep 0.6
kill -INT $P1; wait $P1; r1=$?
expect_eq "client status" 0 $rc
expect_eq "tracer's exit status" 0 $r1
cat $D/counts $D/lat
cat $S/d.json.err
J=$S/d.json
l() { jget $J "$1"; }
drops=$(l drops.total)
say "drops: $drops"
expect_eq "offered = the double's ivpu_* functions in available_filter_functions" $n "$(l attach.offered)"
# kprobe.multi where the kernel takes it (doctor's probe), else one kprobe per function
xputrace doctor --json >$S/dj.json 2>/dev/null
km=$(grep -A1 '"kprobe.multi"' $S/dj.json | grep -c '"ok": true')
say "doctor: kprobe.multi works here: $km"
[ "$km" = 1 ] && want=kprobe.multi || want=kprobe
expect_eq "hook" $want "$(l attach.hook)"
a=$(l attach.attached) r=$(l attach.refused_count)
expect_eq "attached + refused = offered" $n $((a + r))
expect_eq "every refused one listed" $r "$(jget -n $J attach.refused)"
# on the kprobe blacklist: a plain kprobe is refused (EINVAL); kprobe.multi may take it
NK=ivpu_hw_diag_nokprobe
if [ $want = kprobe ]; then
	expect_eq "one kprobe each: $NK refused, with the kernel's reason" "1 Invalid argument" \
		"$r $(l "attach.refused[function=$NK].why")"
else
	say "kprobe.multi: $NK $( [ "$r" = 0 ] && echo attached || echo "refused: $(l attach.refused)")"
	check "only $NK may be refused" [ "$r" -le 1 ]
fi
# A call in an interrupt that came while one of the tracers' programs ran on
# that CPU is skipped by the kernel and counted as a drop: the interrupt's
# calls are seen or counted lost; every other call is seen.
lost=0
for f in $(awk '{ print $1 }' $D/counts); do
	want=$(cnt $D/counts $f) got=$(l "functions[function=$f].calls")
	case $f in
	ivpu_ipc_irq_handler|ivpu_hw_ip_ipc_rx_count_get)
		if [ "$got" = "$want" ]; then ok "$f: calls = the module's count = $want"
		elif [ "$got" -lt "$want" ]; then say "$f: $got of $want seen"; lost=$((lost + want - got))
		else bad "$f: $got calls, more than the module's $want"; fi ;;
	*) expect_eq "$f: calls = the module's count" "$want" "$got" ;;
	esac
done
if grep -q '"kernel_skips_counted":false' $J; then
	# before 6.7 the kernel counts none of a kprobe program's skipped runs (said in the summary)
	check "interrupt calls not seen ($lost) >= drops counted ($drops), this kernel counting not all" [ "$drops" -le "$lost" ]
else
	expect_eq "interrupt calls not seen = drops counted" $lost $drops
fi
for e in "memory 50" "ipc $((15 - lost))" "buffer 9" "job 4" "power 8" "firmware 3" "other 6"; do
	set -- $e
	expect_eq "category $1" $2 "$(l categories.$1)"
done
expect_eq "one process: the client" "1 npuapp $APP" "$(jget -n $J processes) $(l processes[0].comm) $(l processes[0].pid)"
expect_eq "its calls: the ioctl paths, open, boot, close" 80 "$(l processes[0].calls)"
expect_eq "per device: the IPC interrupt, its register read, the IPC worker" "$((15 - lost)) $((15 - lost))" \
	"$(l device.calls) $(l device.categories.ipc)"
expect_eq "IPC messages" 5 "$(l ipc_messages)"
expect_eq "MMU pages per buffer, IPC messages per job" "16 1.25" \
	"$(l ratios.mmu_pages_per_buffer) $(l ratios.ipc_messages_per_job)"
expect_eq "jobs on ctx 1 engine 0: submitted, done" "4 4" "$(l jobs[ctx=1].submitted) $(l jobs[ctx=1].done)"
expect_eq "JSM: SUBMIT_JOB, JOB_DONE, READY messages" "4 4 1" \
	"$(l jsm[type=SUBMIT_JOB].messages) $(l jsm[type=JOB_DONE].messages) $(l jsm[type=READY].messages)"
expect_eq "JSM statuses: request 1, response 0" "1 0" "$(l jsm[type=SUBMIT_JOB].status) $(l jsm[type=JOB_DONE].status)"
expect_eq "PM: suspend, resume" "1 1" "$(l pm[event=suspend].count) $(l pm[event=resume].count)"
expect_eq "timed: bo_create and --latency ivpu_submit_ioctl" "3 4" \
	"$(l latency[function=ivpu_bo_create_ioctl].ns.count) $(l latency[function=ivpu_submit_ioctl].ns.count)"
# the module's clock inside the function; its caller's (the probes' cost included) for scale;
# the delays are checked against the module's clock in group timing, on medians of 11 calls
say "ivpu_bo_create_ioctl by its caller's clock: $(lat bo_create_call | awk '{ printf "%.0f", $1 / $2 }') ns"

group intervals
start_xp $S/iv.json npu -j -i 0.5 || finish
P2=$XPID
$S/npuapp $D/trigger open boot 'bo_create 3 64' 'submit 4' 'get_param 2' close
i=0; while [ "$(cnt $D/counts ivpu_ipc_receive)" != 10 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.6
kill -INT $P2; wait $P2
expect_eq "interval tracer's exit status" 0 $?
nd=$(grep -c '"interval"' $S/iv.json)
check "several interval documents ($nd)" [ "$nd" -ge 2 ]
expect_eq "IPC messages over the intervals (the IPC worker is never interrupted)" 5 "$(grep -o '"ipc_messages":[0-9]*' $S/iv.json | cut -d: -f2 | awk '{ s += $1 } END { print s }')"
ivd=$(grep -o '"drops":{"total":[0-9]*' $S/iv.json | cut -d: -f3 | awk '{ s += $1 } END { print s + 0 }')
ivc=$(grep -o '"function":"[^"]*","calls":[0-9]*' $S/iv.json | cut -d: -f3 | awk -v d=$ivd '{ s += $1 } END { print s + d }')
if grep -q '"kernel_skips_counted":false' $S/iv.json; then
	# a kernel before 6.7 skips a kprobe program's run uncounted when an
	# interrupt's call lands on one running: xputrace must say so, and only
	# the interrupt's calls (6 of them) can be missing
	say "this kernel does not count skipped runs (xputrace says so): $ivc of 95 calls seen"
	check "calls over the intervals + drops ($ivc): 95, less at most the 6 made in interrupts" \
		[ "$ivc" -le 95 ] && [ "$ivc" -ge 89 ]
else
	expect_eq "calls over the intervals + drops (the same client without its suspend)" 95 "$ivc"
fi
grep -o '"ipc_messages":[0-9]*,"ipc_messages_per_s":[0-9.e+-]*' $S/iv.json

group baseline
start_xp $S/b.txt npu --no-hist --baseline $J || finish
P3=$XPID
start_xp $S/rec.out record -o /tmp/npu.xpt npu || finish
P5=$XPID
$S/npuapp $D/trigger open 'bo_create 2 256' 'submit 2' close
i=0; while [ "$(cnt $D/counts ivpu_ipc_receive)" != 12 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -INT $P3 $P5; wait $P3; r3=$?; wait $P5; r5=$?
expect_eq "baseline and record exit status" "0 0" "$r3 $r5"
group record_report
xputrace report /tmp/npu.xpt npu --json >$S/rep.json 2>$S/rep.err
expect_eq "report exit status" 0 $?
cat $S/rep.err
R=$S/rep.json
rl=$(jget $R drops.total)
expect_eq "report: pages mapped, buffers, jobs, IPC messages" "128 2 2 2" \
	"$(jget $R functions[function=ivpu_mmu_context_map_page].calls) $(jget $R buffers_created) $(jget $R jobs_submitted) $(jget $R ipc_messages)"
expect_eq "report: ratios" "64 1" "$(jget $R ratios.mmu_pages_per_buffer) $(jget $R ratios.ipc_messages_per_job)"
expect_eq "report: bo_create timed twice, jobs done" "2 2 2" \
	"$(jget $R latency[function=ivpu_bo_create_ioctl].ns.count) $(jget $R jobs[ctx=1].submitted) $(jget $R jobs[ctx=1].done)"
expect_eq "report: the client's calls, per process" "npuapp 146" "$(jget $R processes[0].comm) $(jget $R processes[0].calls)"
expect_eq "report: interrupt calls seen + drops" 6 $(($(jget $R device.calls) + rl))
xputrace export --perfetto /tmp/npu.xpt --format json -o $S/npu.pf.json 2>$S/pf.err
expect_eq "export exit status" 0 $?
expect_eq "Perfetto: bo_create slices, job spans begun and ended" "2 2 2" \
	"$(grep -o '"cat":"npu_call","name":"ivpu_bo_create_ioctl"' $S/npu.pf.json | wc -l) $(grep -o '"ph":"b"' $S/npu.pf.json | wc -l) $(grep -o '"ph":"e"' $S/npu.pf.json | wc -l)"
group baseline_text
cat $S/b.txt
check "it says what moved" grep -q '^against the baseline .*: moved beyond 50 %' $S/b.txt
expect_eq "MMU pages mapped per buffer moved from 16 to 64" 1 \
	"$(grep -c '^  MMU pages mapped per buffer  *16.00 ->  *64.00 (x4.00)' $S/b.txt)"
expect_eq "IPC messages per job did not move (2 of 2)" 0 "$(grep -c 'IPC messages per job  .*->' $S/b.txt)"
echo '{"command":"npu","ratios":{' >$S/bad.json
xputrace npu --baseline $S/bad.json -d 1 >/dev/null 2>$S/bad.err
expect_eq "a damaged baseline: exit 2" 2 $?
expect_eq "with one line" 1 "$(grep -c 'baseline .*not a JSON document' $S/bad.err)"

group timing
# The imposed delays, each timed 11 times by the tracer and by the module:
# medians, which a host stall in one or two calls cannot move
each() { awk -v k=$1 '$1 == k { print $2 }' $D/lat_each | tail -n +$(($2 + 1)); }
for k in bo_create job jsm suspend; do eval "before_$k=$(awk -v k=$k '$1 == k' $D/lat_each | wc -l)"; done
rcv=$(cnt $D/counts ivpu_ipc_receive)
start_xp $S/tm.json npu -j || finish
P6=$XPID
$S/npuapp $D/trigger open 'bo_create 11 4' 'submit 11' 'suspend 20' 'suspend 20' 'suspend 20' 'suspend 20' \
	'suspend 20' 'suspend 20' 'suspend 20' 'suspend 20' 'suspend 20' 'suspend 20' 'suspend 20' close
rc=$?
i=0; while [ "$(cnt $D/counts ivpu_ipc_receive)" -lt $((rcv + 11)) ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -INT $P6; wait $P6
expect_eq "timing: client and tracer status" "0 0" "$rc $?"
t() { jget $S/tm.json "$1"; }
median_vs_module "ivpu_bo_create_ioctl (10 ms imposed)" "$(t latency[function=ivpu_bo_create_ioctl].ns.p50)" \
	"$(t latency[function=ivpu_bo_create_ioctl].ns.count)" 10000000 $(each bo_create $before_bo_create)
median_vs_module "job submit -> done (5 ms imposed)" "$(t jobs[ctx=1].submit_to_done_ns.p50)" \
	"$(t jobs[ctx=1].submit_to_done_ns.count)" 5000000 $(each job $before_job)
median_vs_module "JSM request -> response (5 ms imposed)" "$(t jsm[type=SUBMIT_JOB].request_to_response_ns.p50)" \
	"$(t jsm[type=SUBMIT_JOB].request_to_response_ns.count)" 5000000 $(each jsm $before_jsm)
median_vs_module "PM suspend -> resume (20 ms imposed)" "$(t pm[event=suspend].to_next_ns.p50)" \
	"$(t pm[event=suspend].to_next_ns.count)" 20000000 $(each suspend $before_suspend)

group serve
# serve picks npu by default (this kernel has vpu:job) and probes intel_vpu's
# job tracepoint alone: jobs per cgroup of the submitting process and engine,
# and each job's submit -> done, against the double's count per process
CG=/sys/fs/cgroup
grep -q ' cgroup2 ' /proc/mounts || mount -t cgroup2 none $CG || { bad "mount cgroup2"; finish; }
mkdir -p $CG/na $CG/nb
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
jobs0=$(cnt $D/counts ivpu_submit_ioctl) done0=$(lat job | cut -d' ' -f2)
start_xp $S/sv.out serve --listen 127.0.0.1:9467 || finish
PS=$XPID
sh -c "echo \$\$ >$CG/na/cgroup.procs; exec $S/npuapp $D/trigger open 'submit 3' close"; ra=$?
sh -c "echo \$\$ >$CG/nb/cgroup.procs; exec $S/npuapp $D/trigger open 'submit 5' close"; rb=$?
# until the double has answered every job (done fires 5 ms after each)
i=0; while [ "$(lat job | cut -d' ' -f2)" != $((${done0:-0} + 8)) ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.8	# the last done, then serve's 0.5 s tick
wget -q -O $S/sv.txt http://127.0.0.1:9467/metrics; rw=$?
kill -INT $PS; wait $PS; rs=$?
cat $S/sv.out.err
grep '^xputrace_npu' $S/sv.txt | grep -v _bucket
expect_eq "clients', serve's and wget's status" "0 0 0 0" "$ra $rb $rs $rw"
expect_eq "the double's submits" 8 "$(($(cnt $D/counts ivpu_submit_ioctl) - jobs0))"
check "serve picked npu, on intel_vpu's vpu:job alone" grep -q '^Tracing .*npu (tracepoint)' $S/sv.out.err
sv() { awk -v k="$1" 'index($0, k) == 1 { print $2 }' $S/sv.txt; }
for e in na:3 nb:5; do
	L="{cgroup=\"/${e%:*}\",driver=\"intel_vpu\",engine=\"0\"}"
	expect_eq "serve: jobs of cgroup ${e%:*}" ${e#*:} "$(sv "xputrace_npu_jobs_total$L ")"
	expect_eq "serve: job times of cgroup ${e%:*}, one a job done" ${e#*:} "$(sv "xputrace_npu_job_seconds_count$L ")"
	# each 5 ms by the double's clock (a busy wait) and more: at least 5 ms a job
	check "serve: cgroup ${e%:*}'s jobs took at least 5 ms each" awk -v s="$(sv "xputrace_npu_job_seconds_sum$L ")" \
		-v n=${e#*:} 'BEGIN { exit !(s >= n * 0.005) }'
done
expect_eq "serve: drops" 0 "$(sv 'xputrace_drops_total{cause="ringbuf"}')"
rmmod intel_vpu
finish
