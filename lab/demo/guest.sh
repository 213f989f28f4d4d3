# The demo inside the guest: the mock GPU and vkms kept busy by a few
# "applications", and what xputrace shows about them.
load mockgpu; load vgem; load vkms
cp /lab/bin/mocksubmit $S/renderer; cp /lab/bin/mocksubmit $S/trainer
cp /lab/bin/drmioctl $S/compositor
# a renderer: a frame is two jobs on ring 0 and a copy on ring 1 that waits for them
$S/renderer -q -s -n 0 -i 10 'ring=0 dur_us=800' 'ring=0 dur_us=400 dep=@1' 'ring=1 dur_us=200 dep=@2' &
# a trainer: batches of long jobs on ring 1
$S/trainer -q -s -n 0 -i 5 'ring=1 dur_us=3000 count=4' &
# a display client flipping frames on vkms at 60 Hz
vblank /dev/dri/card1 waits=0 flips=1000000 >/dev/null &
# a compositor asking vkms for its resources and creating buffers
$S/compositor /dev/dri/card1 version=1 getres=2 dumb=1 repeat=0 interval_ms=100 >/dev/null &
sleep 1
say "xputrace doctor"
xputrace doctor
say "xputrace ioctl -d 5 (GPU ioctls of every process, named and timed)"
xputrace ioctl -d 5 2>&1
for cmd in sched vblank; do
	if xputrace $cmd --help >/dev/null 2>&1; then
		say "xputrace $cmd -d 5"
		xputrace $cmd -d 5 2>&1
	fi
done
say "xputrace sched --stream -d 1 (each job as it completes; DEPWAIT ~: from the scheduler finding it blocked)"
xputrace sched --stream -d 1 2>&1 | grep -m 12 -e '^TIME' -e 'mock-ring1 .*renderer'
say "the mock GPU's own view (its clock), last jobs"
tail -5 /sys/kernel/debug/mockgpu/jobs
cat /sys/kernel/debug/mockgpu/stats
kill $(jobs -p) 2>/dev/null
exit 0
