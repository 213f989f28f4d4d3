# lab-alone: its display client is held to 60 Hz
# record --last --trigger vblank:missed on vkms: a page-flipping client whose
# 20th flip misses its vblank (its buffer's vgem fence signalled late) makes
# one file; its window (2 s before, 1 s after) covers the whole client, so the
# file must hold what a plain `record` of the same flips holds: the same
# records, the frames the client asked, completed and missed by its own count.
need_xputrace
load vkms || finish
load vgem || finish
DEV=$(card_of vkms) VGEM=$(card_of vgem)
[ -n "$DEV" ] && [ -n "$VGEM" ] || { bad "vkms or vgem made no /dev/dri/card*"; finish; }
val() { sed -n "s/.*$2 \([0-9]*\).*/\1/p" $1 | head -1; }

say "record and record --last at once: flipper, 30 flips, the 20th late"
flight_start vblank vblank:missed:flipper 2 1 || finish
flipper $DEV api=legacy frames=30 late_every=20 vgem=$VGEM > /tmp/c.txt
expect_eq "flipper status" 0 $?
cat /tmp/c.txt
flight_stop vblank vblank-missed vblank:missed:flipper 1.7
P=$(val /tmp/c.txt pid)
c="clients[pid=$P]"
# the vblank instants of an export ("name seq" a line) whose time (us) lies in [A, B]
inst() { # EXPORT INFO A B
	grep -o '"ts":[0-9.]*,"s":"t","cat":"vblank","name":"[a-z_]*","args":{"seq":[0-9]*' $1 |
		sed 's/"ts":\([0-9.]*\),"s":"t","cat":"vblank","name":"\([a-z_]*\)","args":{"seq":\([0-9]*\)/\1 \2 \3/' |
		awk -v s="$(jget $2 start_ns)" -v a=$3 -v b=$4 '{ t = s / 1000 + $1; if (t >= a && t <= b) print $2, $3 }'
}
xputrace export --perfetto $F --format json -o /tmp/fl.pf.json 2>/dev/null
xputrace export --perfetto /tmp/full.xpt --format json -o /tmp/full.pf.json 2>/dev/null
# the window, 50 ms in from either edge (what the two tracers stamp a few us apart)
A=$(awk -v t="$(jget /tmp/fl.info tracing_ns)" 'BEGIN { printf "%.0f", t / 1000 + 50000 }')
B=$(awk -v t="$(jget /tmp/fl.info tracing_ns)" -v d="$(jget /tmp/fl.info duration_s)" \
	'BEGIN { printf "%.0f", t / 1000 + d * 1e6 - 50000 }')
inst /tmp/fl.pf.json /tmp/fl.info $A $B > /tmp/fl.inst
inst /tmp/full.pf.json /tmp/full.info $A $B > /tmp/full.inst
check "the window's vblank events, one by one, are the plain recording's ($(wc -l < /tmp/fl.inst) of them)" \
	cmp -s /tmp/fl.inst /tmp/full.inst
check "the window holds the client's frames and the vblanks around them" [ "$(wc -l < /tmp/fl.inst)" -ge 60 ]
for k in asked completed missed_target; do
	expect_eq "file = plain recording: $c.$k" "$(jget /tmp/full.json "$c.$k")" "$(jget /tmp/fl.json "$c.$k")"
done
expect_eq "frames asked (the client's own count)" "$(val /tmp/c.txt asked)" "$(jget /tmp/fl.json "$c.asked")"
expect_eq "frames missed (the client's own count)" "$(val /tmp/c.txt missed)" "$(jget /tmp/fl.json "$c.missed_target")"
finish
