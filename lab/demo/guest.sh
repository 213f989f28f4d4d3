# The demo inside the guest: the mock GPU and vkms kept busy by a few
# "applications", and what xputrace shows about them.
load mockgpu; load vgem; load vkms
cp /lab/bin/mocksubmit $S/renderer; cp /lab/bin/mocksubmit $S/trainer
cp /lab/bin/drmioctl $S/compositor
# a renderer: a frame is two jobs on ring 0 and a copy on ring 1 that waits for them
$S/renderer -q -s -n 0 -i 10 'ring=0 dur_us=800' 'ring=0 dur_us=400 dep=@1' 'ring=1 dur_us=200 dep=@2' &
# a trainer: batches of long jobs on ring 1
$S/trainer -q -s -n 0 -i 5 'ring=1 dur_us=3000 count=4' &
# vkms's card, by its device (the card numbers follow the load order)
for c in /sys/class/drm/card[0-9]*; do
	case ${c##*/} in *-*) continue ;; esac
	[ "$(basename "$(readlink -f "$c/device")")" = vkms ] && KMS=/dev/dri/${c##*/}
done
[ -n "${KMS:-}" ] || { echo "demo: vkms made no /dev/dri/card*" >&2; exit 1; }
# a display client flipping frames on vkms at 60 Hz; it sets the mode, so it
# must be the card's DRM master: started first, and the others only once it
# has set its mode (the first file opened on a card with no master becomes it)
vblank $KMS waits=0 flips=1000000 >$S/display.txt 2>&1 &
i=0
while ! grep -q '^mode ' $S/display.txt && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
grep -q '^mode ' $S/display.txt || { echo "demo: the display client did not set a mode: $(cat $S/display.txt)" >&2; exit 1; }
# a compositor asking vkms for its resources and creating buffers
$S/compositor $KMS version=1 getres=2 dumb=1 repeat=0 interval_ms=100 >/dev/null &
sleep 1
say "xputrace doctor"
xputrace doctor
say "xputrace ioctl -d 5 (GPU ioctls of every process, named and timed)"
xputrace ioctl -d 5 2>&1
for cmd in sched vblank; do
	if xputrace $cmd --help >/dev/null 2>&1; then
		say "xputrace $cmd -d 5"
		xputrace $cmd -d 5 >$S/$cmd.txt 2>&1
		cat $S/$cmd.txt
	fi
done
# the vblank section must show the display client's frames, not an empty table
if ! grep -q '^frames (page flips' $S/vblank.txt || grep -q '^no vblank events' $S/vblank.txt; then
	echo "demo: the vblank section shows no frames of the display client (see above)" >&2
	kill $(jobs -p) 2>/dev/null
	exit 1
fi
say "xputrace sched --stream -d 1 (each job as it completes; DEPWAIT ~: from the scheduler finding it blocked)"
xputrace sched --stream -d 1 2>&1 | grep -m 12 -e '^TIME' -e 'mock-ring1 .*renderer'
say "the mock GPU's own view (its clock), last jobs"
tail -5 /sys/kernel/debug/mockgpu/jobs
cat /sys/kernel/debug/mockgpu/stats
kill $(jobs -p) 2>/dev/null
exit 0
