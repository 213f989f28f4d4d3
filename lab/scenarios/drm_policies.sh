# xputrace simulate's drm_sched policies against the real scheduler: the same
# workload recorded under each of gpu_sched's policies (the module reloaded
# with sched_policy=1 FIFO, 2 FAIR, 0 RR; Linux 7.x), then each recording
# simulated under the others' policies and compared with their real runs.
# The workload, after the fair scheduler's own tests: two clients keep one
# ring deep-queued with 40 jobs of 8 ms each, submitted together, one at
# normal and one at low priority (the mock GPU's prio=low).
# A prediction counts where the two real runs differ by 10 % or more (10
# points of the GPU for a share): it must be within a third of their
# difference of the real run (so the recording replayed unchanged would
# fail). Checked: each recording predicting each other policy, each
# client's median response and GPU share; the p99 (here the client's last
# job) is shown, not checked: two real runs of one policy differ by up to
# 15 ms there, as much as a third of the policies' difference (the
# recordings committed as tests/golden/data/drm_*_deep.xpt are checked on
# it too, by tests/e2e/test_simulate_drm.sh).
# Linux 6.1 has no sched_policy (round robin only): its recording must replay
# under drm-rr as recorded.
need_xputrace
J=40 DUR=8000

policy_name() { case $1 in 0) echo rr ;; 1) echo fifo ;; 2) echo fair ;; esac; }

# record P: the workload under gpu_sched's policy P ("" for the kernel's own)
record() {
	local p=$1 n=${1:-own} pa pb ra rb rr
	modprobe gpu_sched ${p:+sched_policy=$p} || { bad "modprobe gpu_sched sched_policy=$p"; return 1; }
	[ -z "$p" ] || expect_eq "gpu_sched sched_policy" "$p" "$(cat /sys/module/gpu_sched/parameters/sched_policy)"
	load mockgpu || return 1
	start_xp /tmp/rec$n.out record -o /tmp/p$n.xpt sched || return 1
	mocksubmit -q -s "ring=0 dur_us=$DUR count=$J" & pa=$!
	mocksubmit -q -s "prio=low ring=0 dur_us=$DUR count=$J" & pb=$!
	wait $pa; ra=$?
	wait $pb; rb=$?
	sleep 0.2
	stop_xp; rr=$?
	expect_eq "policy $n: submitters' and recorder's status" "0 0 0" "$ra $rb $rr"
	rmmod mockgpu && rmmod gpu_sched || bad "rmmod mockgpu gpu_sched"
	echo "$pa $pb" >/tmp/p$n.pids
	set -- $(cat /tmp/p$n.pids)
	xputrace simulate /tmp/p$n.xpt --compare drm-fifo,drm-rr,drm-fair --drm-prio $2=low --json \
		>/tmp/p$n.json 2>/tmp/p$n.err
	expect_eq "policy $n: simulate's status" 0 $?
	cat /tmp/p$n.err
}

# val P POLICY ROLE METRIC: from recording P, the schedule POLICY's value for
# the normal (0) or low (1) client: p50_ns, p99_ns, share_pct
val() {
	jget /tmp/p$1.json "results[policy=$2].tasks[name=mocksubmit/$(cut -d' ' -f$(($3 + 1)) /tmp/p$1.pids)].$4"
}

# predict R S: recording R simulated under S's policy against S's real run
predict() {
	local r=$1 s=$2 role m a b z
	for role in 0 1; do
		for m in p50_ns p99_ns share_pct; do
			a=$(val $r recorded $role $m) b=$(val $s recorded $role $m)
			z=$(val $r drm-$(policy_name $s) $role $m)
			awk -v a="$a" -v b="$b" -v z="$z" -v m=$m -v d="$(policy_name $r)->$(policy_name $s) $([ $role = 0 ] && echo normal || echo low) $m" 'BEGIN {
				diff = a - b; if (diff < 0) diff = -diff
				err = z - b; if (err < 0) err = -err
				printf "## %s: real %s %.4g, real %s %.4g, predicted %.4g: error %.4g, a third of the difference %.4g\n",
					d, "from", a, "to", b, z, err, diff / 3
				if (diff < (m == "share_pct" ? 10 : 0.1 * b)) { print "## " d ": the real runs differ by less than 10 %, not judged"; exit 0 }
				if (m == "p99_ns") { print "## " d ": shown, not judged"; exit 0 }
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
	echo "LAB-BLOB p$p.xpt $(cat /tmp/p$p.pids)"; base64 /tmp/p$p.xpt; echo "LAB-BLOB-END"
done
finish
