#!/usr/bin/env bash
# `xputrace vblank` and `xputrace mem` on this machine's kernel: bad input is
# refused with one line (exit 2); on a kernel without the DRM events they
# fail with one line that points at doctor (exit 1), never a crash or a
# hang. The events themselves are exercised in the lab (lab/scenarios/).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

cmds=(vblank)
"$XP" --help 2>/dev/null | grep -q '^  mem ' && cmds+=(mem)
if [ ! -x "$XP" ]; then
	for c in "${cmds[@]}"; do skip "$c bad input: $XP is not built"; skip "$c without DRM: $XP is not built"; done
	exit 0
fi
for c in "${cmds[@]}"; do
	one_line "$c rejects an unknown flag" 2 "unknown option" "$c" --bogus
	one_line "$c rejects a bad duration" 2 "duration" "$c" -d 0
	one_line "$c rejects a stray argument" 2 "unexpected argument" "$c" extra
done
one_line "vblank rejects a bad --late-ms" 2 "late-ms" vblank --late-ms 1ms
if [[ " ${cmds[*]} " == *" mem "* ]]; then
	one_line "mem rejects a --group without =" 2 "DRIVER=GROUP" mem --group amdgpu
	one_line "mem rejects a --group of an unknown driver" 2 "unknown driver" mem --group radeon=x
	one_line "mem rejects a --group with a path" 2 "DRIVER=GROUP" mem --group i915=../x
fi

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	for c in "${cmds[@]}"; do skip "$c without DRM: $why"; done
	exit 0
fi
tfs=/sys/kernel/tracing
[ -d $tfs/events ] || mount -t tracefs nodev $tfs 2>/dev/null
[ -d $tfs/events ] || tfs=/sys/kernel/debug/tracing
for c in "${cmds[@]}"; do
	case $c in
	vblank) groups="drm" ;;
	mem) groups="amdgpu i915 xe" ;;
	esac
	present=""
	for g in $groups; do [ -d "$tfs/events/$g" ] && present="$present $g"; done
	if [ -n "$present" ]; then
		skip "$c without DRM: this kernel has the event groups:$present"
		continue
	fi
	one_line "$c without DRM fails with one line" 1 "doctor" "$c" -d 1
	one_line "$c --json without DRM fails with one line" 1 "doctor" "$c" -j -d 1
	# every tracing verb takes the process filters (vblank refused them once)
	cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	one_line "$c takes -p/-c${cg:+/-G}: without DRM it fails for that, not for the flags" 1 "doctor" \
		"$c" -p 1 -c x ${cg:+-G "$cg"} -d 1
done
# a hook the vblank kernel side does not have: refused before anything opens
XPUTRACE_VBLANK_HOOK=kprobe_only one_line "vblank refuses an unknown XPUTRACE_VBLANK_HOOK" 1 \
	"XPUTRACE_VBLANK_HOOK=kprobe_only: not a hook" vblank -d 1
if [[ " ${cmds[*]} " == *" mem "* ]] && [ ! -d "$tfs/events/memtest_absent" ]; then
	one_line "mem --group to a missing group fails with one line" 1 "doctor" mem --group amdgpu=memtest_absent -p 1 -d 1
fi
