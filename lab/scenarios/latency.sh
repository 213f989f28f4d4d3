# xputrace latency on the smmu:io_fault_entry/io_fault_exit events of the
# IO page-fault test double (lab/modules/iopf_double), fired with known
# PASIDs, counts and delays: exact counts per device and PASID, histogram
# totals equal to the counts, no pair shorter than its delay; INTERVAL COUNT
# output; kprobe and kprobe/kretprobe pairs on the module's functions;
# fentry/fexit on the kernel's hrtimer_nanosleep, keyed by an argument.
need_xputrace
load iopf_double || finish
D=/sys/kernel/debug/iopf_double
[ -w $D/fire ] || { bad "no $D/fire"; finish; }
fire() { echo "$*" >$D/fire || bad "fire $*"; }
# the sum of a key's log2 histogram slots
hsum() { jget $1 "$2.hist.log2" | grep -o '"count":[0-9]*' | awk -F: '{ s += $2 } END { print s + 0 }'; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

group doctor
xputrace doctor >/tmp/doctor.txt 2>&1
check "doctor: --preset iopf uses the smmu fault events" grep -q 'latency.*smmu:io_fault_entry/exit events' /tmp/doctor.txt
grep latency /tmp/doctor.txt

group preset_iopf
start_xp /tmp/a.json latency --preset iopf --json || finish
fire pasid=1 count=20 delay_us=200
fire pasid=2 count=35 delay_us=1000
fire pasid=7 count=5 delay_us=3000 dev=iopf1
stop_xp; xrc=$?
expect_eq "xputrace exit status" 0 $xrc
cat $D/counts
expect_eq "pairs" 60 "$(jget /tmp/a.json pairs)"
expect_eq "ends without a start" 0 "$(jget /tmp/a.json ends_without_start)"
expect_eq "keys" 3 "$(jget -n /tmp/a.json keys)"
for e in "iopf0 1 20 200" "iopf0 2 35 1000" "iopf1 7 5 3000"; do
	set -- $e
	L="dev=$1 pasid=$2"
	expect_eq "$L: count" $3 "$(jget /tmp/a.json "keys[label=$L].count")"
	expect_eq "$L: histogram total" $3 "$(hsum /tmp/a.json "keys[label=$L]")"
	min=$(jget /tmp/a.json "keys[label=$L].min_ns")
	check "$L: no fault shorter than its $4 us (min $min ns)" [ "${min:-0}" -ge $(($4 * 1000)) ]
done
xputrace latency --preset iopf -d 0.1 --no-hist 2>&1 | head -3

group interval
# faults all along, 10 every 0.1 s or so, until tracing ends (a fixed number
# of rounds ran out before the third interval when the host was loaded and
# loading the programs took seconds)
(while :; do echo "pasid=3 count=10 delay_us=100" >$D/fire; sleep 0.1; done) &
FP=$!
# timed from when tracing began (the "Tracing" line): loading the programs
# under emulation on a busy host takes seconds of its own
start_xp /tmp/i.txt latency --preset iopf --no-hist 1 3 || finish
t0=$(uptime_ms)
wait $XPID
xrc=$?
t1=$(uptime_ms)
kill $FP 2>/dev/null; wait $FP 2>/dev/null
expect_eq "xputrace exit status" 0 $xrc
expect_eq "summaries" 3 "$(grep -c '^--- interval' /tmp/i.txt)"
expect_eq "the last is interval 3" 1 "$(grep -c '^--- interval 3 ---' /tmp/i.txt)"
expect_eq "a row for dev=iopf0 pasid=3 in every summary" 3 "$(grep -c '^dev=iopf0 pasid=3 ' /tmp/i.txt)"
check "3 intervals of 1 s took 3 to 5 s after tracing began ($((t1 - t0)) ms)" [ $((t1 - t0)) -ge 2900 -a $((t1 - t0)) -lt 5000 ]
head -12 /tmp/i.txt

group kprobe_pair
start_xp /tmp/k.json latency --from kprobe:iopf_double_start --to kprobe:iopf_double_done --key arg1 --json || finish
fire pasid=4 count=12 delay_us=500
fire pasid=5 count=8 delay_us=500
stop_xp; xrc=$?
expect_eq "xputrace exit status" 0 $xrc
expect_eq "kprobe pairs keyed by arg1 (the PASID): 4" 12 "$(jget /tmp/k.json 'keys[label=arg1=0x4].count')"
expect_eq "kprobe pairs keyed by arg1 (the PASID): 5" 8 "$(jget /tmp/k.json 'keys[label=arg1=0x5].count')"
start_xp /tmp/r.json latency --from kprobe:iopf_double_handle --to kretprobe:iopf_double_handle --json || finish
fire pasid=6 count=9 delay_us=300
stop_xp; xrc=$?
expect_eq "xputrace exit status" 0 $xrc
expect_eq "kprobe/kretprobe pairs" 9 "$(jget /tmp/r.json pairs)"
min=$(jget /tmp/r.json 'keys[0].min_ns')
check "kprobe/kretprobe: none shorter than 300 us (min $min ns)" [ "${min:-0}" -ge 300000 ]
xputrace latency --from kprobe:no_such_function_here --to kretprobe:no_such_function_here -d 1 >/tmp/e.out 2>/tmp/e.err
expect_eq "a kprobe on a missing function: exit status" 1 $?
check "a kprobe on a missing function: one line" [ "$(wc -l </tmp/e.err)" -eq 1 ]
cat /tmp/e.err
group fentry_fexit
# busybox sleep: nanosleep -> hrtimer_nanosleep(rqtp, mode, clockid CLOCK_MONOTONIC = 1)
# run as "busybox sleep" (comm busybox): start_xp's own polling sleeps are "sleep"
start_xp /tmp/f.json latency --from fentry:hrtimer_nanosleep --to fexit:hrtimer_nanosleep --key arg2 -c busybox --json || finish
for i in 1 2 3 4 5; do busybox sleep 0.1; done
stop_xp; xrc=$?
expect_eq "xputrace exit status" 0 $xrc
# glibc's nanosleep asks for CLOCK_REALTIME (0), others CLOCK_MONOTONIC (1): one key either way
expect_eq "fentry/fexit: one key" 1 "$(jget -n /tmp/f.json keys)"
L=$(jget /tmp/f.json 'keys[0].label')
case $L in arg2=0x0 | arg2=0x1) ok "fentry/fexit: keyed by the clock id argument ($L)" ;; *) bad "fentry/fexit: key '$L', want arg2=0x0 or 0x1" ;; esac
expect_eq "fentry/fexit pairs" 5 "$(jget /tmp/f.json 'keys[0].count')"
min=$(jget /tmp/f.json 'keys[0].min_ns')
check "fentry/fexit: none shorter than 100 ms (min $min ns)" [ "${min:-0}" -ge 100000000 ]
finish
