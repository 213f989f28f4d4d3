# xputrace simulate's drm_sched policies against the real scheduler: the same
# workload recorded under each of gpu_sched's policies (the module reloaded
# with sched_policy=1 FIFO, 2 FAIR, 0 RR; Linux 7.x), then each recording
# simulated under the others' policies and compared with their real runs.
# The workload, after the fair scheduler's own tests: two clients keep one
# ring deep-queued with 40 jobs of 8 ms each, submitted together, one at
# normal and one at low priority (the mock GPU's prio=low), the normal
# client's first.
# A prediction counts where the two real runs differ by 10 % or more (10
# points of the GPU for a share): it must be within a third of their
# difference of the real run (so the recording replayed unchanged would
# fail). Checked: each recording predicting each other policy, each
# client's p50 and p99 response and GPU share (a predicted time scaled by
# the two runs' mean job cost: the emulated ring's speed varies by a few %
# between runs on a loaded host).
# Linux 6.1 has no sched_policy (round robin only): its recording must replay
# under drm-rr as recorded.
need_xputrace
J=40 DUR=8000

policy_name() { case $1 in 0) echo rr ;; 1) echo fifo ;; 2) echo fair ;; esac; }

# record P: the workload under gpu_sched's policy P ("" for the kernel's own).
# On 7.x one process submits for both clients (mocksubmit -o: a file each,
# written in turn), so the normal client's jobs are queued before the low
# one's every time: two processes race, and one preempted between its first
# job's queue event and the job reaching its entity lets the other take the
# ring's 4 credits first, which no event shows. 6.1's events carry no DRM
# client, so there the clients are two processes.
record() {
	local p=$1 n=${1:-own} pa pb ra rb=0 rr by=
	modprobe gpu_sched ${p:+sched_policy=$p} || { bad "modprobe gpu_sched sched_policy=$p"; return 1; }
	[ -z "$p" ] || expect_eq "gpu_sched sched_policy" "$p" "$(cat /sys/module/gpu_sched/parameters/sched_policy)"
	load mockgpu || return 1
	start_xp /tmp/rec$n.out record -o /tmp/p$n.xpt sched || return 1
	if [ -n "$p" ]; then
		mocksubmit -o -q -s "ring=0 dur_us=$DUR count=$J" "prio=low ring=0 dur_us=$DUR count=$J"; ra=$?
	else
		mocksubmit -q -s "ring=0 dur_us=$DUR count=$J" & pa=$!
		mocksubmit -q -s "prio=low ring=0 dur_us=$DUR count=$J" & pb=$!
		wait $pa; ra=$?
		wait $pb; rb=$?
	fi
	sleep 0.2
	stop_xp; rr=$?
	expect_eq "policy $n: submitters' and recorder's status" "0 0 0" "$ra $rb $rr"
	rmmod mockgpu && rmmod gpu_sched || bad "rmmod mockgpu gpu_sched"
	if [ -n "$p" ]; then
		by="--by client"
		xputrace simulate /tmp/p$n.xpt $by --policy drm-fifo --json >/tmp/p$n.json
		# the normal client opened its file first: the lower client id
		if [ "$(jget /tmp/p$n.json 'tasks[0].client')" -lt "$(jget /tmp/p$n.json 'tasks[1].client')" ]; then
			echo "$(jget /tmp/p$n.json 'tasks[0].name') $(jget /tmp/p$n.json 'tasks[1].name')"
		else
			echo "$(jget /tmp/p$n.json 'tasks[1].name') $(jget /tmp/p$n.json 'tasks[0].name')"
		fi >/tmp/p$n.names
	else
		echo "mocksubmit/$pa mocksubmit/$pb" >/tmp/p$n.names
	fi
	set -- $(cat /tmp/p$n.names)
	say "policy $n: normal client $1, low $2"
	xputrace simulate /tmp/p$n.xpt $by --compare drm-fifo,drm-rr,drm-fair --drm-prio "$2=low" --json \
		>/tmp/p$n.json 2>/tmp/p$n.err
	expect_eq "policy $n: simulate's status" 0 $?
	cat /tmp/p$n.err
}

# val P POLICY ROLE METRIC: from recording P, the schedule POLICY's value for
# the normal (0) or low (1) client: p50_ns, p99_ns, share_pct
val() {
	jget /tmp/p$1.json "results[policy=$2].tasks[name=$(cut -d' ' -f$(($3 + 1)) /tmp/p$1.names)].$4"
}

# mean_cost P: the mean time a job of recording P took on the ring, ns
mean_cost() {
	awk -v u="$(jget /tmp/p$1.json 'results[policy=recorded].all.util')" \
		-v j="$(jget /tmp/p$1.json 'results[policy=recorded].all.jobs_per_s')" 'BEGIN { print u / j * 1e9 }'
}

# predict R S: recording R simulated under S's policy against S's real run.
# The emulated ring's jobs run a few % longer in one run than in another on
# a loaded host (the mock GPU's timers): a predicted time is scaled by the
# two recordings' mean job cost before it is compared.
predict() {
	local r=$1 s=$2 role m a b z k
	k=$(awk -v x="$(mean_cost $s)" -v y="$(mean_cost $r)" 'BEGIN { print x / y }')
	say "$(policy_name $r)->$(policy_name $s): the jobs took $k times as long in the real run"
	for role in 0 1; do
		for m in p50_ns p99_ns share_pct; do
			a=$(val $r recorded $role $m) b=$(val $s recorded $role $m)
			z=$(val $r drm-$(policy_name $s) $role $m)
			[ $m = share_pct ] || z=$(awk -v z="$z" -v k="$k" 'BEGIN { printf "%.0f", z * k }')
			awk -v a="$a" -v b="$b" -v z="$z" -v m=$m -v d="$(policy_name $r)->$(policy_name $s) $([ $role = 0 ] && echo normal || echo low) $m" 'BEGIN {
				diff = a - b; if (diff < 0) diff = -diff
				err = z - b; if (err < 0) err = -err
				printf "## %s: real %s %.4g, real %s %.4g, predicted %.4g: error %.4g, a third of the difference %.4g\n",
					d, "from", a, "to", b, z, err, diff / 3
				if (diff < (m == "share_pct" ? 10 : 0.1 * b)) { print "## " d ": the real runs differ by less than 10 %, not judged"; exit 0 }
				if (err <= diff / 3) { print "ok   " d ": predicted within a third of the policies difference"; exit 0 }
				print "FAIL " d ": predicted off by more than a third of the policies difference"; exit 1 }'
			[ $? -eq 0 ] || FAILS=$((FAILS + 1))
		done
	done
}

load gpu_sched || finish
has_policy=$([ -e /sys/module/gpu_sched/parameters/sched_policy ] && echo 1)
say "gpu_sched sched_policy: $(cat /sys/module/gpu_sched/parameters/sched_policy 2>/dev/null || echo none)"
rmmod gpu_sched || bad "rmmod gpu_sched"
if [ -z "$has_policy" ]; then
	say "this kernel's drm_sched has no sched_policy: round robin only"
	record "" || finish
	for role in 0 1; do
		a=$(val own recorded $role p50_ns) z=$(val own drm-rr $role p50_ns)
		check "client $role: drm-rr replays the recorded median response ($a ns) within 10 %: $z ns" \
			awk -v a="$a" -v z="$z" 'BEGIN { d = a - z; if (d < 0) d = -d; exit !(a > 0 && d * 10 <= a) }'
	done
	finish
fi
for p in 1 2 0; do
	record $p || finish
done
f0=$FAILS
for r in 1 2 0; do
	for s in 1 2 0; do
		[ $r = $s ] || predict $r $s
	done
done
# a prediction off: the recordings, base64 between LAB-BLOB lines, for a look
[ $FAILS = $f0 ] || for p in 1 2 0; do
	echo "LAB-BLOB p$p.xpt $(cat /tmp/p$p.names)"; base64 /tmp/p$p.xpt; echo "LAB-BLOB-END"
done
finish
