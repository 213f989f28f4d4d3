# lab-cpus: 1 2
# lab-cpus-old: 1
# record --last --trigger nvidia:xid=CODE on the nvidia double: of two Xids
# (13, then 79), only the one named makes a file, and its report has it.
need_xputrace
load nvidia || finish
mknod /dev/nvidiactl c 195 255; mknod /dev/nvidia0 c 195 0
D=/tmp/flight
T=/sys/kernel/debug/nvidia_double/trigger

start_xp /tmp/fl.out record --last 1 --after 0.3 --trigger nvidia:xid=79 -o $D nvidia || finish
FL=$XPID
nvclient alloc=1 control=1 pages=0 > /dev/null
echo "xid 13 Graphics Engine Exception" > $T
sleep 0.5
echo "xid 79 GPU has fallen off the bus." > $T
sleep 1
kill -INT $FL; wait $FL
expect_eq "record --last exit status" 0 $?
cat /tmp/fl.out.err
expect_eq "files written (Xid 79 only)" 1 "$(ls $D | grep -c -- '-nvidia-xid\.xpt$')"
F=$(ls $D/*-nvidia-xid.xpt | head -1)
xputrace report $F nvidia --json > /tmp/fl.json 2> /tmp/fl.rep.err
expect_eq "report of the file: exit status" 0 $?
expect_eq "its Xids: both are in its window (the 13 before the 79)" 2 "$(jget -n /tmp/fl.json xids)"
expect_eq "the Xid 79's code" 79 "$(jget /tmp/fl.json xids[code=79].code)"
finish
