# xputrace api on Debian's libdrm under Debian's modetest, unmodified: every
# drmIoctl call (libdrm's own, from drmModeGetResources and the rest, and
# modetest's) joined with exactly the one ioctl it made on the card; and
# `ioctl` traced beside it counts the same ioctls of modetest on the card,
# so that none of them was made outside drmIoctl unseen by api.
need_xputrace
command -v modetest >/dev/null || skip_test "no modetest (libdrm-tests) in the guest"
LIB=
for l in /lib/x86_64-linux-gnu/libdrm.so.2 /usr/lib/x86_64-linux-gnu/libdrm.so.2; do [ -e $l ] && LIB=$l && break; done
[ -n "$LIB" ] || skip_test "no libdrm.so.2 in the guest beside modetest"
load vkms || finish
DEV=$(card_of vkms)
[ -n "$DEV" ] || { bad "vkms made no /dev/dri/card*"; finish; }
xputrace ioctl --device $DEV -c modetest --json >/tmp/i.json 2>/tmp/i.err & IP=$!
i=0; while ! grep -q '^Tracing' /tmp/i.err 2>/dev/null && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
start_xp /tmp/a.json api --lib $LIB:drmIoctl --device $DEV --json || { kill -INT $IP; finish; }
# -c: connectors, encoders, CRTCs and their properties; -p: planes
modetest -M vkms -c -p >/tmp/mt.out 2>&1
rm=$?
stop_xp
ra=$?
kill -INT $IP; wait $IP
ri=$?
expect_eq "modetest, api, ioctl status" "0 0 0" "$rm $ra $ri"
say "modetest printed $(wc -l </tmp/mt.out) lines"
tail -n 1 /tmp/a.json >/tmp/a.sum
f="functions[function=drmIoctl]"
calls=$(jget /tmp/a.sum $f.calls)
say "api: $calls drmIoctl calls, $(jget /tmp/a.sum $f.ioctls) ioctls in them, errors $(jget /tmp/a.sum $f.errors)"
check "modetest made drmIoctl calls ($calls)" [ "${calls:-0}" -ge 20 ]
expect_eq "ioctls joined: one a call" "$calls" "$(jget /tmp/a.sum $f.ioctls)"
expect_eq "most ioctls in one call" 1 "$(jget /tmp/a.sum $f.max_ioctls_per_call)"
expect_eq "calls without an ioctl" 0 "$(jget /tmp/a.sum $f.calls_without_ioctl)"
expect_eq "api drops" 0 "$(jget /tmp/a.sum drops.total)"
# every ioctl modetest made on the card, as `ioctl` counted them
tot=$(tail -n 1 /tmp/i.json | tr '{' '\n' | sed -n 's/.*"calls":\([0-9]*\),.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
expect_eq "modetest's ioctls on $DEV (ioctl beside it) all inside drmIoctl" "$tot" "$calls"
expect_eq "ioctl drops" 0 "$(jget /tmp/i.json drops.total)"
finish
