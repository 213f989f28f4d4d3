# xputrace top on a terminal (curses, a pseudo-terminal kept by ptyscreen):
# the mock GPU's ring under a client whose load rises (30 ms jobs with
# pauses, a third of the ring), then saturates it (2.4 s of jobs back to
# back), then stops. The ring's strip of its last refreshes must show it:
# low marks, then the highest (the ring busy), then marks of an idle ring
# at the newest end; and q ends top with status 0. Seen: ".--%@@@*" on 7.3,
# "--@@@@+" on 6.1, then blanks.
need_xputrace
[ -f /lib/terminfo/x/xterm ] || skip_test "no xterm entry in the guest's terminal database (the host's ncurses-base)"
load mockgpu || finish
# pseudo-terminals: the devpts file system, where /dev/ptmx finds them
grep -q ' /dev/pts devpts ' /proc/mounts || { mkdir -p /dev/pts && mount -t devpts devpts /dev/pts; } ||
	{ bad "mount devpts"; finish; }

group strip
say "1. top -i 0.5 sched on a 24x100 screen, 11 s; the load from the 2nd second"
(
	sleep 2
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12; do
		mocksubmit -q 'ring=0 dur_us=30000 count=1'
		sleep 0.06
	done
	mocksubmit -s -q 'ring=0 dur_us=12000 count=200'
) &
LOAD=$!
ptyscreen 24 100 11 xputrace top -i 0.5 sched >$S/screen.txt 2>$S/screen.err
wait $LOAD
cat $S/screen.txt $S/screen.err
expect_eq "top's status after q" "status 0" "$(tail -1 $S/screen.txt)"
# the ring's strip: "| mock-ring0   [MARKS] NN.N%"; its marks, blanks before the first sample cut
grep '^| mock-ring0 *\[' $S/screen.txt | head -1 | sed 's/^[^[]*\[//; s/\].*//' >$S/marks.txt
marks=$(sed 's/^ *//' $S/marks.txt)
say "mock-ring0's marks: '$marks'"
check "a strip for mock-ring0" [ -s $S/marks.txt ]
# rising: a low mark (. : - =) before the first of the highest (% @); falling: the last
# two newest marks blank or '.' after them
check "the strip rises: a low mark before the ring was full" sh -c "echo '$marks' | grep -Eq '[.:=-].*[%@]'"
check "the strip holds the full ring (% or @)" sh -c "echo '$marks' | grep -q '[%@]'"
check "the strip falls: its newest marks are an idle ring's" sh -c "echo '$marks' | grep -Eq '[%@].*[ .]{2}\$'"
finish
