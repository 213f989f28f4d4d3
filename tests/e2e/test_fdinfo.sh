#!/usr/bin/env bash
# `xputrace fdinfo` here: bad input is refused with one line (exit 2); with
# no process holding a DRM or accel file (this machine has none, or none
# readable) it says so in one line and exits 0; on a fixture /proc tree
# (XPUTRACE_PROC_ROOT, for tests only) it finds the clients, counts a file
# shared by two processes once, keeps what a process that exits used, and
# counts the process it may not read. Real clients are the lab's
# (lab/scenarios/fdinfo.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "fdinfo: $XP is not built"
	exit 0
fi
one_line "fdinfo rejects an unknown flag" 2 "unknown option" fdinfo --bogus
one_line "fdinfo rejects a bad duration" 2 "duration" fdinfo -d 0
one_line "fdinfo rejects a stray argument" 2 "unexpected argument" fdinfo extra
one_line "fdinfo takes no --stream (no events)" 2 "unknown option '--stream'" fdinfo --stream -d 1
one_line "record refuses fdinfo (no records)" 2 "fdinfo has no records" record fdinfo -o /tmp/xp_fdinfo_never.xpt
XPUTRACE_PROC_ROOT=/nonexistent/proc one_line "fdinfo names a /proc it cannot read" 1 "cannot read /nonexistent/proc" fdinfo -d 1

w=$WORK/fdinfo
chmod 755 "$WORK"
mkdir -p "$w/empty"
out=$(XPUTRACE_PROC_ROOT="$w/empty" "$XP" fdinfo -d 0.3 2>/dev/null); rc=$?
if [ $rc -eq 0 ] && grep -q "no process has a DRM or accel device open" <<<"$out"; then
	pass "fdinfo with no DRM client says so in one line, exit 0"
else
	fail "fdinfo with no DRM client: exit $rc, output: ${out:0:300}"
fi

# the tree: 200 and 201 share client 4 (fork), 202 exits during the run, 203's fds are unreadable
proc() { mkdir -p "$w/p/$1/fd" "$w/p/$1/fdinfo"; echo "$2" >"$w/p/$1/comm"; echo "0::$3" >"$w/p/$1/cgroup"; }
fdi() { # pid fd client ns
	ln -sfn /dev/dri/renderD128 "$w/p/$1/fd/$2"
	# whole or not at all: the sampler may read it meanwhile
	printf 'pos:\t0\ndrm-driver:\tmock\ndrm-client-id:\t%s\ndrm-engine-ring0:\t%s ns\ndrm-total-memory:\t%s\ndrm-resident-memory:\t%s\n' \
		"$3" "$4" "4 MiB" "1 MiB" >"$w/p/$1/fdinfo/.$2" && chmod a+r "$w/p/$1/fdinfo/.$2" &&
		mv -f "$w/p/$1/fdinfo/.$2" "$w/p/$1/fdinfo/$2"
}
proc 200 gla /ga; proc 201 glachild /ga; proc 202 glb /gb; proc 203 other /gc
fdi 200 3 4 0; fdi 201 3 4 0; fdi 202 5 5 0; fdi 203 3 6 0
chmod 0700 "$w/p/203/fd"
[ "$(id -u)" -eq 0 ] && user=nobody || user=
run_as() { if [ -n "$user" ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
[ -n "$user" ] && chmod -R a+rX "$w" && chmod 0700 "$w/p/203/fd"
[ -z "$user" ] && chmod 0 "$w/p/203/fd"
json=$w/out.json
( XPUTRACE_PROC_ROOT="$w/p" run_as "$XP" fdinfo -d 3 -j >"$json" 2>"$w/err" ) &
tracer=$!
for _ in $(seq 100); do grep -q Tracing "$w/err" 2>/dev/null && break; sleep 0.05; done
sleep 0.3
# 1.5 s of ring0 for client 4, 0.25 s for client 5, then 202 exits
for p in 200 201; do fdi $p 3 4 1500000000; done
fdi 202 5 5 250000000
sleep 1.3
rm -rf "$w/p/202"
wait $tracer; rc=$?
c4=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=[c for c in d["clients"] if c["client_id"]==4][0]; print(c["engines"][0]["busy_s"], c["processes"], c["pid"], c["memory"][0]["resident"])' "$json" 2>/dev/null)
c5=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=[c for c in d["clients"] if c["client_id"]==5][0]; print(c["engines"][0]["busy_s"], c["gone"])' "$json" 2>/dev/null)
unread=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unreadable_processes"])' "$json" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$c4" = "1.5 2 200 1048576" ]; then
	pass "fdinfo counts a file two processes share once (1.5 s, 2 processes, 1 MiB)"
else
	fail "fdinfo shared file: exit $rc, client 4: '$c4'; $(head -c 400 "$json") $(cat "$w/err")"
fi
if [ "$c5" = "0.25 True" ]; then
	pass "fdinfo keeps the 0.25 s of a process that exited before the end"
else
	fail "fdinfo exited process: client 5: '$c5'"
fi
if [ "$unread" = 1 ] && run_as env XPUTRACE_PROC_ROOT="$w/p" "$XP" fdinfo -d 0.2 2>/dev/null | grep -q "note: 1 process' descriptors could not be read (permission denied, e.g. pid 203)"; then
	pass "fdinfo counts and names the process it may not read"
else
	fail "fdinfo unreadable process: json says '$unread'"
fi
