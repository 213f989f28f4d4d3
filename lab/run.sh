#!/usr/bin/env bash
# Runs one lab scenario in a real Debian kernel under QEMU (software
# emulation, no KVM needed):
#   lab/run.sh [--kernel old|new] [--timeout SECONDS] [--console] SCENARIO
# SCENARIO is lab/scenarios/SCENARIO.sh, run as root inside the guest with
# busybox, xputrace (./xputrace-static, when built), the test modules and
# the guest programs. Its output comes back over a second serial port; this
# command exits with the scenario's status: 0 pass, 77 skip, other fail.
# A guest that does not finish in time is killed and reported as a failure.
# The guest has one vCPU (XPUTRACE_LAB_CPUS to change it). More vCPUs share one
# emulation thread (they interleave for real): with a thread each, QEMU lets
# one vCPU run a half-patched instruction while the other patches kernel text
# (static keys, kprobes), and the 7.3 guest panics on a stray int3 now and then.
# Results (console, output, versions) are kept in $CACHE/results/KERNEL[-NCPU]-SCENARIO/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tag=new timeout=180 console=0 cpus=${XPUTRACE_LAB_CPUS:-1}
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) tag=$2; shift 2 ;;
	--kernel=*) tag=${1#*=}; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--console) console=1; shift ;;
	-h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
scenario=${1:?usage: lab/run.sh [--kernel old|new] SCENARIO}
case $scenario in
*/*) sfile=$(readlink -f "$scenario"); scenario=$(basename "$(dirname "$sfile")") ;; # a script path
*) sfile="$LAB_DIR/scenarios/$scenario.sh" ;;
esac
[ -f "$sfile" ] || die "no scenario $sfile"

# Results of an earlier run must never be read as this run's. Runs on other
# vCPU counts keep theirs apart (KERNEL-NCPU-SCENARIO), since they may run at once.
rtag=$tag; [ "$cpus" = 1 ] || rtag="$tag-${cpus}cpu"
rm -rf "$CACHE/results/$rtag-$scenario"
# test.sh sets up and builds once per kernel and says so (XPUTRACE_LAB_PREPARED)
if [ "${XPUTRACE_LAB_PREPARED:-}" != "$tag" ]; then
	rc=0; "$LAB_DIR/fetch.sh" "$tag" >/dev/null || rc=$?
	[ $rc -eq 0 ] || exit $rc
	"$LAB_DIR/build.sh" "$tag"
fi
load_kernel "$tag"
echo "kernel $tag: $K_RELEASE (linux-image-amd64 $K_PKGVER from $K_SUITE)"

BUILD="$CACHE/build/$K_RELEASE"
RES="$CACHE/results/$rtag-$scenario"
rm -rf "$RES"; mkdir -p "$RES"
ROOT="$RES/rootfs"
mkdir -p "$ROOT"/{bin,sbin,lab/bin,proc,sys,dev,tmp,root,etc}

# --- busybox, init, scenario, guest programs, xputrace
cp "$BUSYBOX" "$ROOT/bin/busybox"
cp "$LAB_DIR/guest/init" "$ROOT/init"
cp "$LAB_DIR/guest/guest-lib.sh" "$ROOT/lab/guest-lib.sh"
cp "$sfile" "$ROOT/lab/scenario.sh"
echo "$scenario" >"$ROOT/lab/scenario.name"
cp "$CACHE/build/guest/"* "$ROOT/lab/bin/" 2>/dev/null || true
# real clients from Debian's packages (build.sh), with their shared libraries
for b in "$CACHE/build/real/"*; do
	[ -x "$b" ] || continue
	cp "$b" "$ROOT/lab/bin/"
	ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r l; do mkdir -p "$ROOT$(dirname "$l")"; cp -L "$l" "$ROOT$l"; done
done
F=${XPUTRACE_BIN:+$(dirname "$XPUTRACE_BIN")/floor-static}
[ -x "${F:-}" ] || F=$REPO_DIR/build/bench/floor-static
[ ! -x "$F" ] || strip --strip-debug -o "$ROOT/lab/bin/floor" "$F"	# bench/floor.c
XP=${XPUTRACE_BIN:-$REPO_DIR/xputrace-static}
if [ -x "$XP" ]; then
	strip --strip-debug -o "$ROOT/bin/xputrace" "$XP"	# smaller initrd, quicker boot
else
	log "no $XP: scenarios that need xputrace will skip (build it with: make static)"
fi
# the terminal database's xterm, for curses programs (top on its screen, ptyscreen)
for t in /lib/terminfo/x/xterm /usr/share/terminfo/x/xterm; do
	[ -f "$t" ] || continue
	mkdir -p "$ROOT/lib/terminfo/x"
	cp "$t" "$ROOT/lib/terminfo/x/xterm"
	break
done
chmod +x "$ROOT/init" "$ROOT"/lab/bin/* 2>/dev/null || true
cat >"$ROOT/lab/versions" <<EOT
kernel=$tag
release=$K_RELEASE
package=linux-image-amd64 $K_PKGVER
suite=$K_SUITE
qemu=$(qemu-system-x86_64 --version | head -1)
busybox=$("$BUSYBOX" 2>&1 | head -1)
EOT
cp "$ROOT/lab/versions" "$RES/versions"

# --- modules: Debian's (decompressed) with what they depend on, plus ours
MODS="$ROOT/lib/modules/$K_RELEASE"
mkdir -p "$MODS/kernel" "$MODS/extra"
declare -A mpath=()
while read -r f; do
	b=${f##*/}; b=${b%%.ko*}; mpath[${b//-/_}]=$f
done < <(cd "$K_MODDIR" && find kernel -name '*.ko*')
mod_deps() { # file -> names it depends on
	case $1 in
	*.xz) xz -dc "$1" ;; *.zst) zstd -qdc "$1" ;; *.gz) gzip -dc "$1" ;; *) cat "$1" ;;
	esac | tr '\0' '\n' | sed -n 's/^depends=//p' | tr ',' '\n' | sed '/^$/d'
}
declare -A have=()
add_module() { # name
	local n=${1//-/_} rel dst d
	[ -z "${have[$n]:-}" ] || return 0
	have[$n]=1
	rel=${mpath[$n]:-}
	[ -n "$rel" ] || { log "module $n not found in $K_RELEASE"; return 0; }
	dst="$MODS/${rel%%.ko*}.ko"
	mkdir -p "$(dirname "$dst")"
	case $rel in
	*.xz) xz -dc "$K_MODDIR/$rel" >"$dst" ;; *.zst) zstd -qdc "$K_MODDIR/$rel" >"$dst" ;;
	*) cp "$K_MODDIR/$rel" "$dst" ;;
	esac
	for d in $(mod_deps "$dst"); do add_module "$d"; done
}
# Every guest gets the DRM core, the scheduler and vgem. The big vendor
# drivers (amdgpu, i915, xe: ~25 MB compressed, ~3 s of every boot under
# emulation) only go to scenarios that name them, or list them in a line
# "# lab-modules: NAME...".
want="drm drm_kms_helper gpu_sched vgem $(sed -n 's/^# lab-modules: //p' "$sfile")"
for n in amdgpu i915 xe; do grep -qw "$n" "$sfile" && want="$want $n"; done
for n in $want; do add_module "$n"; done
while read -r ko; do
	strip --strip-debug -o "$MODS/extra/${ko##*/}" "$ko"	# keeps the symbols kprobes need
	for d in $(mod_deps "$ko"); do add_module "$d"; done
done <"$BUILD/modules.list"
cp "$K_MODDIR"/modules.builtin* "$K_MODDIR"/modules.order "$MODS/" 2>/dev/null || true
"$BUSYBOX" depmod -b "$ROOT" "$K_RELEASE"

(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) >"$RES/initrd.gz"
rm -rf "$ROOT"

# Where each vCPU was when the guest was killed, and whether its interrupts
# were on (RFLAGS.IF). The address stays raw: Debian ships no symbols with its
# kernels (System.map is a stub) and the guest's base is randomised.
hang_where() {
	tr -d '\r' <"$RES/registers.txt" 2>/dev/null | grep -o 'RIP=[0-9a-f]*\|RFL=[0-9a-f]*' | paste - - |
		while read -r rip rfl; do
			echo "guest vCPU at ${rip#RIP=}, interrupts $( [ $((0x${rfl#RFL=} & 0x200)) -ne 0 ] && echo on || echo off)"
		done
}

# --- boot
# A scenario's "# lab-append: PARAM..." line adds kernel parameters.
append=$(sed -n 's/^# lab-append: / /p' "$sfile" | head -1)
log "booting $K_RELEASE for scenario $scenario (timeout ${timeout}s)"
start=$(date +%s.%N)
qrc=0
tcg_threads=multi; [ "$cpus" -eq 1 ] || tcg_threads=single
# A guest that hangs with interrupts off on its one vCPU prints nothing (no
# NMI watchdog under emulation): just before the timeout, QEMU's monitor is
# asked where each vCPU is, for the report below.
( sleep $((timeout - 3)); printf 'info registers -a\n' | timeout 5 python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
time.sleep(2); s.settimeout(1); out = b""
try:
    while True:
        b = s.recv(65536)
        if not b: break
        out += b
except OSError: pass
sys.stdout.buffer.write(out)' "$RES/monitor.sock" >"$RES/registers.txt" 2>/dev/null ) &
watch=$!
timeout -k 5 "$timeout" qemu-system-x86_64 -accel tcg,thread=$tcg_threads -cpu max -smp "$cpus" -m 1024 \
	-kernel "${K_BOOT:-$K_VMLINUZ}" -initrd "$RES/initrd.gz" \
	-append "console=ttyS0 quiet panic=1 tsc=reliable$append" \
	-display none -no-reboot -nodefaults \
	-serial "file:$RES/console.log" -serial "file:$RES/output.txt" \
	-monitor "unix:$RES/monitor.sock,server,nowait" \
	</dev/null >"$RES/qemu.log" 2>&1 || qrc=$?
pkill -P $watch 2>/dev/null || true; kill $watch 2>/dev/null || true; wait $watch 2>/dev/null || true
secs=$(echo "$(date +%s.%N) - $start" | bc)
printf 'boot+run: %.1f s\n' "$secs" | tee "$RES/time"

[ "$console" = 1 ] && cat "$RES/console.log"
sed '/^LAB-EXIT /d' "$RES/output.txt" 2>/dev/null | tr -d '\r' || true
grc=$(tr -d '\r' <"$RES/output.txt" 2>/dev/null | sed -n 's/^LAB-EXIT \([0-9]*\)$/\1/p' | tail -1)
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	echo "guest hung: killed after ${timeout}s (console tail below)"
	tail -20 "$RES/console.log"
	hang_where
	echo 124 >"$RES/rc"; exit 124
fi
if [ -z "$grc" ]; then
	echo "guest ended without an exit status (qemu status $qrc; console tail below)"
	tail -30 "$RES/console.log"; cat "$RES/qemu.log"
	echo 125 >"$RES/rc"; exit 125
fi
echo "$grc" >"$RES/rc"
exit "$grc"
