#!/usr/bin/env bash
# Summaries under process churn. `xputrace ioctl` (counted in the kernel):
# more new (process, device, command) rows between two drains than the
# kernel's map of 16,384 holds; the calls it has no room for are added up in
# an (other) row, counted, and the run ends with its whole summary. `api`:
# more processes than its table's rows, folded alike.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DRV=$E2E_BIN/ioctl_driver

why=$(bpf_unavailable)
[ -x "$DRV" ] || why=${why:-"$DRV is not built"}
if [ -n "$why" ]; then
	skip "ioctl churn burst: $why"
	skip "ioctl churn storm: $why"
	exit 0
fi

# json_calls NAME: of the JSON summary $WORK/NAME.out, "CALLS DROPS
# KERNEL_FOLDED FOLDED" (a call lost must be a counted drop).
json_calls() {
	python3 - "$WORK/$1.out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
calls = sum(i["calls"] for p in d["processes"] for i in p["ioctls"])
print(calls, d["drops"]["total"], d.get("kernel_folded_calls", 0), d.get("folded_calls", 0))
EOF
}

# 1. one process, 20,000 distinct commands at once: the map fills in
# milliseconds, whatever the load. --max-keys past that, so every (other)
# call is one the kernel folded.
N=20000
if start_tracer burst ioctl --device /dev/null --no-hist -c xpt-storm --max-keys 1000000 -j &&
	"$DRV" --cmds $N > "$WORK/burst.drv"; then
	stop_tracer INT
	rc=$?
	read -r calls drops kfolded folded < <(json_calls burst 2>/dev/null)
	if [ $rc -eq 0 ] && [ -n "${calls:-}" ] && [ "$calls" -le $N ] && [ $((calls + drops)) -ge $N ] &&
		[ "$kfolded" -gt 0 ] && [ "$kfolded" = "$folded" ]; then
		pass "ioctl churn burst: a full kernel map folds $kfolded of $calls calls into (other), all counted"
	else
		fail "ioctl churn burst: exit $rc, calls ${calls:-?} drops ${drops:-?} kernel_folded ${kfolded:-?} (want $N calls, some folded): $(head -c 300 "$WORK/burst.err")"
	fi
else
	fail "ioctl churn burst: $(head -c 300 "$WORK/burst.err")"
fi

# 2. 20,000 processes, 8 at a time, each one ioctl, then SIGINT: the run ends
# with its summary (text, as the default prints it), every call counted.
if start_tracer storm ioctl --device /dev/null --no-hist -c xpt-storm &&
	timeout 300 "$DRV" --storm $N 8 > "$WORK/storm.drv"; then
	stop_tracer INT
	rc=$?
	head=$(grep -m1 '^ioctl: ' "$WORK/storm.out")
	calls=$(echo "$head" | sed -nE 's/.* ([0-9]+) calls?,.*/\1/p')
	drops=$(echo "$head" | sed -nE 's/.*drops: ([0-9]+).*/\1/p')
	if [ $rc -eq 0 ] && [ -n "$calls" ] && [ -n "$drops" ] && [ "$calls" -le $N ] &&
		[ $((calls + drops)) -ge $N ] && grep -q '^PID ' "$WORK/storm.out" &&
		! grep -q 'xputrace:' "$WORK/storm.err"; then
		pass "ioctl churn storm: $N processes, 8 at a time: summary of $calls calls"
	else
		fail "ioctl churn storm: exit $rc, '$head', stderr: $(head -c 300 "$WORK/storm.err")"
	fi
else
	fail "ioctl churn storm: $(head -c 300 "$WORK/storm.err")"
fi

# 3. api under the same storm: 20,000 processes each making one traced call.
# Its table folds the calls of processes past its rows into one (other) row
# per function: every call counted, none "not counted".
ADRV=$E2E_BIN/api_driver
if [ -x "$ADRV" ] && [ -e "$E2E_BIN/libapiwork.so" ]; then
	mkdir -p "$WORK/ze"
	cp "$E2E_BIN/libapiwork.so" "$WORK/ze/libze_loader.so.1"
	if start_tracer api api --lib "$WORK/ze/libze_loader.so.1" --device /dev/null -j; then
		"$ADRV" "$WORK/ze/libze_loader.so.1" 8 $N --storm > "$WORK/api.drv"
		drv=$?
		stop_tracer INT
		rc=$?
		got=$(python3 - "$WORK/api.out" "$WORK/api.drv" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
pid = json.loads(open(sys.argv[2]).readline())["pid"]
mine = [f for f in d["functions"] if f["function"] == "zeMemFree" and f["pid"] != pid]
print(sum(f["calls"] for f in mine), d["calls_not_counted"], d.get("calls_folded", 0), d["drops"]["total"])
PY
)
		read -r calls notc folded drops <<< "$got"
		if [ $rc -eq 0 ] && [ $drv -eq 0 ] && [ "${calls:-}" = $N ] && [ "$notc" = 0 ] && [ "${folded:-0}" -gt 0 ]; then
			pass "api churn storm: $N processes, 8 at a time: all $calls calls counted, $folded in (other) rows"
		else
			fail "api churn storm: exit $rc (driver $drv): calls, not counted, folded, drops: $got"
		fi
	else
		fail "api churn storm: $(head -c 300 "$WORK/api.err")"
	fi
else
	skip "api churn storm: $ADRV or libapiwork.so is not built"
fi
