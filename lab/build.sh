#!/usr/bin/env bash
# Builds the lab's test modules and guest programs for one kernel generation:
#   lab/build.sh old|new|guest
# (guest: only the guest programs the generations share, which the others
# build too when stale; lab/test.sh builds them first, then both
# generations' modules at once)
# Modules are built out of tree against the kernel's own Debian headers, in
# the cache (the clone stays clean). vkms is built from the same version's
# linux-source because Debian does not ship it. Make decides what is stale.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
tag=${1:?usage: lab/build.sh old|new|guest}

build_modules() {
	load_kernel "$tag"
	OUT="$CACHE/build/$K_RELEASE"
	mkdir -p "$OUT"
	KMAKE=(make -s -C "$K_HDR" CC=gcc-12 HOSTCC=gcc-12)
	# Newer suites' headers come from a gcc newer than Debian 12's: drop the
	# options only that compiler has; module BTF would need a newer pahole.
	if dpkg --compare-versions "${K_RELEASE%%[+-]*}" ge 6.8; then
		KMAKE+=(CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT= CONFIG_DEBUG_INFO_BTF_MODULES=)
	fi

	# A module that does not build is left out (and said so): the scenarios
	# that load it fail at modprobe, the others still run.
	: >"$OUT/failed.list"
	build_module() { # name source-dir [extra make args]
		local name=$1 src=$2; shift 2
		local dir="$OUT/$name"
		mkdir -p "$dir"
		# copy only when changed, so make's timestamps stay meaningful
		cp -pu "$src"/* "$dir"/ 2>/dev/null || true
		# kbuild takes seconds even with nothing to do: skip it when no source
		# is newer than the module
		local ko; ko=$(ls "$dir"/*.ko 2>/dev/null | head -1 || true)
		if [ -n "$ko" ] && [ -z "$(find "$dir" -maxdepth 1 \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) -newer "$ko" | head -1)" ]; then
			return 0
		fi
		if ! "${KMAKE[@]}" M="$dir" "$@" modules >"$dir/build.log" 2>&1; then
			grep -E 'error|Error' "$dir/build.log" | head -5 >&2
			log "building $name for $K_RELEASE failed (left out; log: $dir/build.log)"
			rm -f "$dir"/*.ko
			echo "$name" >>"$OUT/failed.list"
		fi
}

for m in "$LAB_DIR"/modules/*/; do
	m=${m%/}
	build_module "$(basename "$m")" "$m"
done
build_module vkms "$K_SRC/drivers/gpu/drm/vkms" CONFIG_DRM_VKMS=m
# The nvidia double gets module BTF (for fentry/fexit on it), made as kbuild
# makes it, against the kernel's own vmlinux: kbuild skips it without a
# vmlinux beside the headers, and on newer suites it is switched off above.
nvko="$OUT/nvidia_double/nvidia.ko"
if [ -f "$nvko" ] && [ -f "$K_DIR/vmlinux.pvh" ] && command -v pahole >/dev/null &&
	! readelf -S "$nvko" | grep -q ' \.BTF '; then
	LLVM_OBJCOPY=objcopy pahole -J --btf_base "$K_DIR/vmlinux.pvh" "$nvko" >/dev/null 2>&1 ||
		log "no BTF for nvidia_double on $K_RELEASE (pahole failed): fentry on it is not tested"
fi
# modules whose source is gone
for d in "$OUT"/*/; do
	n=$(basename "$d")
	[ "$n" = vkms ] || [ -d "$LAB_DIR/modules/$n" ] || rm -rf "$d"
done
}

build_guest() {
	# Guest programs: static, so they run on busybox alone.
	G="$CACHE/build/guest"
	mkdir -p "$G"
	for c in "$LAB_DIR"/guest/*.c; do
		b=$(basename "$c" .c)
		if [ ! -x "$G/$b" ] || [ "$c" -nt "$G/$b" ]; then
			# stripped, but for programs whose functions are traced by name
			strip=-s
			! grep -q 'xputrace-lab: symbols' "$c" || strip=
			gcc-12 -O2 $strip -Wall -Wextra -static -I/usr/include/libdrm -o "$G/$b" "$c" -ldrm ||
				die "building guest program $b failed"
		fi
	done
	# the benchmark's workload, for the cost of each hook in the guest
	if [ ! -x "$G/ioctl_loop" ] || [ "$LAB_DIR/../bench/ioctl_loop.c" -nt "$G/ioctl_loop" ]; then
		gcc-12 -O2 -s -Wall -Wextra -static -o "$G/ioctl_loop" "$LAB_DIR/../bench/ioctl_loop.c" ||
			die "building guest program ioctl_loop failed"
	fi
	# drmioctl as a 32-bit program too (raw ioctls, no libdrm): its calls take the
	# compat ioctl path, as a 32-bit game's under Wine/Proton do.
	if [ ! -x "$G/drmioctl32" ] || [ "$LAB_DIR/guest/drmioctl.c" -nt "$G/drmioctl32" ]; then
		gcc-12 -m32 -O2 -s -Wall -Wextra -static -I/usr/include/libdrm -o "$G/drmioctl32" \
			"$LAB_DIR/guest/drmioctl.c" || log "building drmioctl32 failed (gcc-multilib missing?)"
	fi

	# A real display client from Debian's packages: libdrm-tests' modetest
	# (-v: page flips), run in the guest with the shared libraries it loads
	# (run.sh copies them). Without it, the scenarios that need it skip.
	REAL="$CACHE/build/real"
	if [ ! -x "$REAL/modetest" ]; then
		mkdir -p "$CACHE/debs" "$REAL"
		apt_setup old
		if (cd "$CACHE/debs" && apt_run old apt-get download -qq libdrm-tests) >/dev/null 2>&1; then
			t=$(mktemp -d)
			dpkg-deb -x "$(ls -t "$CACHE"/debs/libdrm-tests_*.deb | head -1)" "$t"
			cp "$t/usr/bin/modetest" "$REAL/" || log "libdrm-tests has no usr/bin/modetest"
			rm -rf "$t"
		else
			log "apt-get download libdrm-tests failed: scenarios that need modetest skip"
		fi
	fi
}

# (not "guest || build_modules": set -e would not stop inside it)
if [ "$tag" != guest ]; then
	build_modules
fi
build_guest
if [ "$tag" != guest ]; then
	ls "$OUT"/*/*.ko >"$OUT/modules.list" 2>/dev/null || true
	log "$tag: built $(wc -l <"$OUT/modules.list") modules for $K_RELEASE"
fi
