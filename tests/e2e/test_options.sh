#!/usr/bin/env bash
# The same options everywhere. Every option that `xputrace CAP --help` lists
# is taken by `record ... CAP` as the verb takes it, or refused with the one
# line that `record --help` documents; never "unknown option". An option is
# judged against the same command without it: where the capability does not
# run on this machine, both must fail alike (the option was taken, the
# capability is what is missing). The options that shape a summary are kept
# in the file and applied by report; serve and top name an option they do
# not take, and why.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
if [ ! -x "$XP" ]; then
	skip "options: $XP is not built"
	exit 0
fi
LIB=$E2E_BIN/libapiwork.so
COMMON=" duration interval stream json device pid comm cgroup no-hist verbose help "
echo '{"command": "npu", "ratios": {"mmu_pages_per_buffer": 1}}' > "$WORK/base.json"

caps=$("$XP" --help | awk '/^Commands:/ { on = 1; next } on && $1 == "record" { exit } on && $1 != "doctor" { print $1 }')
refused=$("$XP" record --help | sed -n '/^Refused by record:/,/^[^ ]/p')

# what a capability needs to run at all, and the arguments that go with one option
needs() { # CAP
	case $1 in
	latency) echo "--preset syscall:getppid" ;;
	api) [ -e "$LIB" ] && echo "--lib $LIB" ;;
	esac
}
value() { # CAP OPTION [ARG]: the option with a value its verb takes
	set -- "$1" "$2" "${3:-}"
	case $1:$2 in
	latency:from | latency:to) echo "--from tracepoint:syscalls:sys_enter_getppid --to tracepoint:syscalls:sys_exit_getppid" ;;
	latency:key) echo "--from tracepoint:syscalls:sys_enter_getppid --to tracepoint:syscalls:sys_exit_getppid --key pid" ;;
	latency:preset) echo "--preset syscall:getppid" ;;
	latency:*) echo "--$2 ${3:+100}" ;;
	ioctl:hook) echo "--hook tracepoint" ;;
	mem:group) echo "--group amdgpu=amdgpu" ;;
	npu:latency) echo "--latency ivpu_job_submit" ;;
	npu:baseline) echo "--baseline $WORK/base.json" ;;
	nvidia:on-xid) echo "--on-xid $WORK/xid.xpt" ;;
	sched:ring) echo "--ring gfx_0.0.0" ;;
	api:lib) echo "--lib ${LIB:-libOpenCL.so.1}" ;;
	*:*)
		case $3 in
		"") echo "--$2" ;;
		N) echo "--$2 100" ;;
		*) echo "--$2 2" ;;
		esac
		;;
	esac
}
rec() { # OUT ERR args...: record for 0.3 s; prints the status
	local out=$1 err=$2
	shift 2
	timeout 30 "$XP" record -o "$WORK/o.xpt" -d 0.3 "$@" > "$out" 2> "$err"
	echo $?
}

# "SHORT LONG ARG" for each option a --help text lists ("-" for none)
options() { # CAP
	"$XP" "$1" --help | python3 -c '
import re, sys
on = False
for line in sys.stdin:
    if line.startswith("Options:"):
        on = True
        continue
    if on and not line.strip():
        break
    m = on and re.match(r"^  (?:-(\w), |    )--([a-z0-9-]+)(?: ([^ ]+))?", line)
    if m:
        print("-" + m.group(1) if m.group(1) else "-", m.group(2), m.group(3) or "-")
'
}

n=0 bad=0
for cap in $caps; do
	base_rc=$(rec "$WORK/b.out" "$WORK/b.err" $(needs $cap) $cap)
	while read -r short long arg; do
		[[ $COMMON == *" $long "* ]] && continue
		[ "$arg" = - ] && arg=""
		for form in long short; do
			[ $form = short ] && [ "$short" = - ] && continue
			args=$(value $cap $long "$arg")
			[ $form = short ] && args=${args/--$long/$short}
			# latency's probe options are its whole pair: no preset beside them
			if [ $cap = latency ] && [[ $long == @(from|to|key|preset) ]]; then
				set -- $args $cap
			else
				set -- $(needs $cap) $args $cap
			fi
			line="record $*"
			rc=$(rec "$WORK/w.out" "$WORK/w.err" "$@")
			n=$((n + 1))
			err=$(grep -v '^Tracing\|^Recorded\|^xputrace: record: .* aged out' "$WORK/w.err")
			if grep -qi "unknown option\|unrecognized option" "$WORK/w.err"; then
				verdict="unknown option"
			elif [ "$rc" -eq 0 ]; then
				continue	# it ran with the option
			elif [ "$(wc -l <<< "$err")" -eq 1 ] && grep -q "^xputrace: record: --$long " <<< "$err" &&
				grep -q "^  $cap  *--$long.*: it $(sed "s/^xputrace: record: --$long //" <<< "$err")\$" <<< "$refused"; then
				continue	# refused, as record --help says
			elif [ "$base_rc" -ne 0 ] && [ "$rc" -eq "$base_rc" ] &&
				[ "$(cut -d' ' -f1-8 <<< "$err")" = "$(cut -d' ' -f1-8 "$WORK/b.err")" ]; then
				continue	# taken: the capability itself does not run here (it says so alike)
			else
				verdict="status $rc (without it $base_rc)"
			fi
			bad=$((bad + 1))
			echo "options: '$line': $verdict: $(head -c 200 <<< "$err")" >&2
		done
	done < <(options $cap)
done
if [ $n -eq 0 ]; then
	fail "options: no capability option was found in the --help texts"
elif [ $bad -eq 0 ]; then
	pass "options: record takes all $n capability options the verbs' --help lists (long and short forms), or refuses them as record --help says"
else
	fail "options: record refused $bad of $n capability options the verbs take (see above)"
fi

# serve and top take ioctl's options that change what is traced, and name the
# ones they do not take, with why: never "unknown option" (vblank's --late-ms:
# where vblank does not run here, that it is not in this run)
for verb in serve top; do
	for opt in "--max-keys 100" "--max-age 2" "--late-ms 2"; do
		"$XP" $verb $opt > /dev/null 2> "$WORK/s.err"
		rc=$?
		if [ $rc -eq 2 ] && [ "$(wc -l < "$WORK/s.err")" -eq 1 ] && grep -q "^xputrace: $verb: ${opt% *} .*\(which $verb does not print\|has no metrics\|none of which is in this run\)" "$WORK/s.err"; then
			pass "options: $verb refuses ${opt% *} naming it: $(cut -c 11- "$WORK/s.err")"
		else
			fail "options: $verb ${opt% *}: status $rc: $(head -c 200 "$WORK/s.err")"
		fi
	done
done

# options are taken by their whole names only: each long option of every
# command's --help, less its last letter (where that is no option of its own),
# is refused as an unknown option, naming the one it abbreviates. A trailing
# unknown option stops the command line where an abbreviation was taken.
verbs=$("$XP" --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
n=0 bad=0
for verb in $verbs; do
	longs=$("$XP" $verb --help | grep -oE '^ +(-[a-zA-Z], +)?--[a-z0-9][a-z0-9-]*' | sed 's/.*--//' | sort -u)
	for long in $longs; do
		short=${long%?}
		[ ${#short} -ge 2 ] && ! grep -qx -- "$short" <<< "$longs" || continue
		n=$((n + 1))
		timeout 20 "$XP" $verb --$short=1 --zzz-end > "$WORK/ab.out" 2> "$WORK/ab.err"
		rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l < "$WORK/ab.err")" -ne 1 ] ||
			! grep -q "^xputrace: $verb: unknown option '--$short'" "$WORK/ab.err"; then
			bad=$((bad + 1))
			echo "options: '$verb --$short=1': status $rc: $(head -c 200 "$WORK/ab.err")" >&2
		fi
	done
done
if [ $n -lt 40 ]; then
	fail "options: only $n abbreviations of long options found in the --help texts"
elif [ $bad -eq 0 ]; then
	pass "options: $n abbreviated long options of $(wc -w <<< "$verbs") commands are refused as unknown, naming the full one"
else
	fail "options: $bad of $n abbreviated long options were taken (see above)"
fi
one_line "options: record --format is not --format1" 2 "unknown option '--format' \(options are not abbreviated: --format1\?\)" \
	record -o "$WORK/f.xpt" --format -d 0.1

# options that conflict, or that shape nothing asked for: one line, status 2
G=tests/golden/data/gen
one_line "options: simulate refuses --policy with --compare" 2 "simulate: --policy and --compare both name" \
	simulate $G/tg_4ms.xpt --policy fifo --compare prt
one_line "options: simulate refuses --format without --perfetto" 2 "simulate: --format is --perfetto's format" \
	simulate $G/tg_4ms.xpt --policy fifo --format proto
one_line "options: simulate refuses --enforce without --reserve" 2 "simulate: --enforce .* no --reserve" \
	simulate $G/tg_4ms.xpt --policy fifo --enforce ae
one_line "options: simulate refuses --depth where no policy is fifo, rr or drm" 2 "simulate: --depth shapes fifo, rr and the drm policies" \
	simulate $G/tg_4ms.xpt --compare prt,ht --depth 2
one_line "options: simulate refuses --json with --perfetto -" 2 "simulate: --json .* --perfetto -" \
	simulate $G/tg_4ms.xpt --policy fifo --perfetto - --json
one_line "options: analyze refuses --json with --perfetto -" 2 "analyze: --json .* --perfetto -" \
	analyze $G/tg_4ms.xpt --perfetto - -j
one_line "options: analyze refuses a --window that rounds to no nanosecond" 2 "analyze: --window 1e-10 is under a nanosecond" \
	analyze $G/tg_4ms.xpt --window 1e-10
one_line "options: export refuses --force with -o -" 2 "export: --force .* -o - is standard output" \
	export --perfetto $G/all.xpt -o - --force
one_line "options: record refuses --force with -o -" 2 "record: --force .* -o - is standard output" \
	record -o - --force -d 0.1
one_line "options: record refuses -j with -o -, naming -j's summaries" 2 "record: --json \(the summaries\) reads the file" \
	record -o - -j -d 0.1
one_line "options: report refuses --no-hist with --info" 2 "report: --no-hist shapes the summary" \
	report $G/all.xpt --info --no-hist

# what record keeps for the summary, report applies: --max-keys 1 over three
# sleeping threads shows one key and an (other keys) row
why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "options: report applies record's --max-keys: $why"
	exit 0
fi
"$XP" record -o "$WORK/k.xpt" --preset syscall:clock_nanosleep --max-keys 1 --max-age 5 latency \
	> /dev/null 2> "$WORK/k.err" &
pid=$!
for _ in $(seq 100); do grep -q '^Tracing' "$WORK/k.err" && break; sleep 0.05; done
for _ in 1 2 3; do sleep 0.05 & done
wait $(jobs -p | grep -v "^$pid$") 2> /dev/null
kill -INT $pid
wait $pid
rc=$?
"$XP" report "$WORK/k.xpt" latency -j > "$WORK/k.json" 2> "$WORK/kr.err"
if [ $rc -eq 0 ] && "$XP" report "$WORK/k.xpt" --info | grep -q "^options: *latency --max-keys 1, latency --max-age 5" &&
	python3 - "$WORK/k.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["keys"]
assert d["pairs"] >= 3, d["pairs"]
assert [r["label"] for r in rows][1:] == ["(other keys)"], rows
PY
then
	pass "options: report applies the --max-keys and keeps the --max-age record was given (one key and the other keys)"
else
	fail "options: report of record --max-keys 1: status $rc: $(head -c 300 "$WORK/k.json") $(head -c 200 "$WORK/kr.err")"
fi

# --max-age ages the kernel's in-flight table while recording, as the live
# verb does: starts whose end never comes are let go and said at the end
"$XP" record -o "$WORK/a.xpt" -d 2 --from tracepoint:syscalls:sys_enter_clock_nanosleep \
	--to tracepoint:syscalls:sys_exit_getppid --max-age 0.2 latency > /dev/null 2> "$WORK/a.err" &
pid=$!
for _ in $(seq 100); do grep -q '^Tracing' "$WORK/a.err" && break; sleep 0.05; done
sleep 0.05
wait $pid
rc=$?
if [ $rc -eq 0 ] && grep -q "^xputrace: record: latency: [1-9][0-9]* starts aged out of the in-flight table" "$WORK/a.err"; then
	pass "options: record's --max-age ages latency's in-flight table: $(grep 'aged out' "$WORK/a.err" | cut -c 11-)"
else
	fail "options: record --max-age 0.2: status $rc: $(head -c 300 "$WORK/a.err")"
fi
