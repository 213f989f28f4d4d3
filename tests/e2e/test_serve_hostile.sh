#!/usr/bin/env bash
# `xputrace serve` against hostile clients on loopback: 1,000 idle
# connections and 1,000 trickling a head never ended (scrapes are still
# answered within a second: connections past the limit are shed, the oldest
# idle first), and 200 clients that ask for 10,000 series and never read
# (serve's memory stays bounded); what was shed is in /metrics and said at
# the end.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
CHECK="python3 tests/e2e/check_serve_hostile.py"

cases="idle slow unread shed"
why=$(bpf_unavailable)
if [ -n "$why" ]; then
	for t in $cases; do skip "serve hostile $t: $why"; done
	exit 0
fi
# the clients' descriptors: 1,000 connections and the scrapes'
ulimit -n 4096 2> /dev/null || ulimit -n "$(ulimit -Hn)"

addr_of() { # NAME: the address serve printed
	grep -o 'http://[0-9.]*:[0-9]*' "$WORK/$1.err" | head -1 | sed 's|http://||'
}

if start_tracer idle serve --listen 127.0.0.1:0 --device /dev/null; then
	ADDR=$(addr_of idle)
	$CHECK idle "$ADDR" 1000 60
	$CHECK slow "$ADDR" 1000 60
	# each 1,000 past the limit of 512 shed up to 488 (fewer where a connection was not
	# made): the idle ones, then (the slow ones in two waves) the first wave's heads, older
	# than the second's new connections
	curl -s "http://$ADDR/metrics" > "$WORK/shed.txt"
	idle=$(sed -n 's/^xputrace_http_connections_shed_total{reason="idle"} //p' "$WORK/shed.txt")
	slow=$(sed -n 's/^xputrace_http_connections_shed_total{reason="slow_head"} //p' "$WORK/shed.txt")
	stop_tracer TERM
	rc=$?
	last=$(tail -1 "$WORK/idle.err")
	if [ $rc -eq 0 ] && [ "${idle:-0}" -ge 244 ] && [ "${slow:-0}" -ge 244 ] &&
		[[ $last == "xputrace: serve: shed "*" HTTP connections ("*" idle, "*" slow_head"* ]]; then
		pass "serve counts what it shed in /metrics ($idle idle, $slow slow_head) and says it at the end: $last"
	else
		fail "serve shed: exit $rc, xputrace_http_connections_shed_total idle ${idle:-none}, slow_head ${slow:-none} (want 244 each at least), last line '$last'"
	fi
else
	for t in idle slow shed; do fail "serve hostile $t: did not start"; done
fi

# 10,000 series (--per-process: one process, 4,096 ioctl commands, three
# series each, the rest folded) make a 6.8 MB scrape; 200 clients asking for
# it and never reading held 1.3 GB before responses were shared and bounded
# (a sanitized build holds what is freed in its quarantine, 256 MB unless told: a small one
# here, so that what is measured is serve's own)
if ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:quarantine_size_mb=4} \
	start_tracer unread serve --listen 127.0.0.1:0 --device /dev/null --per-process; then
	ADDR=$(addr_of unread)
	$CHECK series "$ADDR" 10000 30
	$CHECK unread "$ADDR" "$TRACER" 200 200
	stop_tracer TERM > /dev/null
else
	fail "serve hostile unread: did not start"
fi
