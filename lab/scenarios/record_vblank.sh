# xputrace record/report/export for vblank on vkms, and sched and vblank in
# one recording (one ring buffer shared by two BPF objects): report must say
# what the live command said about the same frames.
need_xputrace
load vkms || finish
DEV=$(ls /dev/dri/card* 2>/dev/null | head -1)
[ -n "$DEV" ] || { bad "vkms made no /dev/dri/card*"; finish; }
F=/tmp/v.xpt

val() { sed -n "s/.*$2 \([0-9]*\).*/\1/p" $1 | head -1; }
# The kernel's own drm_vblank_event lines for sequence numbers FIRST..LAST:
# "COUNT MISSED" (gaps between events less than 1 s apart), the analysis's rule.
kernel_vblanks() {
	grep ' drm_vblank_event: ' $S/trace.txt | sed -n 's/.*seq=\([0-9]*\), time=\([0-9]*\).*/\1 \2/p' |
		awk -v f=$1 -v l=$2 '$1 >= f && $1 <= l { if (n && $1 - s > 1 && $2 - t < 1000000000) m += $1 - s - 1; s = $1; t = $2; n++ }
			END { printf "%d %d\n", n, m }'
}

group vblank
trace_on drm:drm_vblank_event
start_xp /tmp/live.json vblank --json || finish
LIVE=$XPID
start_xp /tmp/rec.out record -o $F vblank || finish
REC=$XPID
vblstall $DEV frames=60 >/tmp/a.txt; rc=$?
kill -INT $REC $LIVE	# at once: vblanks go on after vblstall ends (the interrupt's off delay)
wait $REC; rrec=$?
wait $LIVE; rlive=$?
trace_off
expect_eq "vblstall status" 0 $rc
expect_eq "record/live exit status" "0 0" "$rrec $rlive"
P=$(val /tmp/a.txt pid) CI=$(val /tmp/a.txt crtc_index)
xputrace report $F vblank --json >/tmp/rep.json 2>/tmp/rep.err
expect_eq "report exit status" 0 $?
xputrace report $F --no-hist
l() { jget /tmp/live.json "$1"; }
r() { jget /tmp/rep.json "$1"; }
for k in "clients[pid=$P].requests" "clients[pid=$P].delivered" "clients[pid=$P].missed_frames" \
	"clients[pid=$P].comm" "crtcs[crtc=$CI].refresh_hz" drops.total; do
	expect_eq "report = live: $k" "$(l "$k")" "$(r "$k")"
done
expect_eq "requests by vblstall" 60 "$(r "clients[pid=$P].requests")"
# The two tracers attach a few hundred ms apart while vkms's vblanks already
# run: each is checked against the kernel's own trace over what it saw.
for who in l r; do
	first=$($who "crtcs[crtc=$CI].first_seq") last=$($who "crtcs[crtc=$CI].last_seq")
	expect_eq "$([ $who = l ] && echo live || echo report): CRTC $CI vblanks and missed ($first..$last) as in the kernel's trace" \
		"$(kernel_vblanks $first $last)" "$($who "crtcs[crtc=$CI].vblanks") $($who "crtcs[crtc=$CI].missed")"
done
rv=$(r "crtcs[crtc=$CI].vblanks")
xputrace export --perfetto $F --format json -o /tmp/v.json 2>/dev/null
expect_eq "export exit status" 0 $?
expect_eq "vblank instants = vblanks reported" "$rv" "$(grep -o '"ph":"i","pid":[0-9]*,"tid":[0-9]*,"ts":[0-9.]*,"s":"t","cat":"vblank","name":"vblank"' /tmp/v.json | wc -l)"
# "card0 CRTC 0" where the probes gave each vblank its device, else "CRTC 0"
check "a CRTC track" grep -Eq "\"args\":\\{\"name\":\"(card[0-9]+ )?CRTC $CI\"\\}" /tmp/v.json

group sched_and_vblank
if ! load mockgpu; then finish; fi
start_xp /tmp/rec2.out record -o /tmp/sv.xpt sched vblank || finish
REC=$XPID
mocksubmit -s -q 'ring=0 dur_us=300 count=25' &
PA=$!
vblstall $DEV frames=30 >/tmp/b.txt; rc=$?
wait $PA; ra=$?
sleep 0.1
kill -INT $REC; wait $REC
expect_eq "record exit status" 0 $?
expect_eq "submitter/vblstall status" "0 0" "$ra $rc"
P=$(val /tmp/b.txt pid)
expect_eq "capabilities in the file" "sched, vblank" "$(xputrace report /tmp/sv.xpt --info | sed -n 's/^recorded: *\([a-z, ]*\) (.*/\1/p')"
xputrace report /tmp/sv.xpt sched --json >/tmp/s.json
xputrace report /tmp/sv.xpt vblank --json >/tmp/v2.json
JOBS=$(jget /tmp/s.json jobs) INC=$(jget /tmp/s.json incomplete) INF=$(jget /tmp/s.json done_inferred)
expect_eq "sched jobs from the shared ring buffer (done + incomplete)" 25 $((JOBS + INC))
expect_eq "vblank requests from the shared ring buffer" 30 "$(jget /tmp/v2.json "clients[pid=$P].requests")"
# vkms's vblank (an hrtimer interrupt) can land while the sched program runs:
# the kernel skips that run; the file must count what was lost
if uname -r | awk -F. '{ exit !($1 > 6 || ($1 == 6 && $2 >= 7)) }'; then
	check "lost done events ($((INF + INC))) are drops in the file ($(jget /tmp/s.json drops.total))" \
		[ $((INF + INC)) -le "$(jget /tmp/s.json drops.total)" ]
fi
expect_eq "both views read the same drops" "$(jget /tmp/s.json drops.total)" "$(jget /tmp/v2.json drops.total)"
finish
