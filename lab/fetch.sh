#!/usr/bin/env bash
# Sets up the lab's kernels from Debian's packages, in a cache outside the clone:
#   lab/fetch.sh [old|new ...]      (default: both)
# old = Debian 12 bookworm's current 6.1 kernel; new = the newest kernel >= 6.17
# in trixie-backports (sid when backports has none). Each is resolved through
# its metapackages, downloaded with apt-get download and unpacked with
# dpkg-deb -x; nothing is installed on the host except the lab's tools.
# A second run touches no network unless XPUTRACE_LAB_REFRESH=1 or the
# resolution is older than XPUTRACE_LAB_MAX_AGE_DAYS (default 7).
# Exit 77 when the archive cannot be reached and nothing is cached.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

REFRESH=${XPUTRACE_LAB_REFRESH:-0}
MAX_AGE=${XPUTRACE_LAB_MAX_AGE_DAYS:-7}

# Parse "a (= 1), b | c, d (>= 2)" into lines "name version-or-empty",
# keeping per alternative group the first linux-* kernel package.
kernel_deps() {
	tr ',' '\n' | while read -r grp; do
		[ -n "$grp" ] || continue
		local IFS='|' alt
		for alt in $grp; do
			alt=$(echo "$alt" | sed 's/^ *//; s/ *$//')
			local name=${alt%% *} ver=""
			name=${name%%:*}
			case $alt in *"(= "*) ver=$(echo "$alt" | sed 's/.*(= \([^)]*\)).*/\1/') ;; esac
			case $name in
			linux-base) continue ;; # the generic perl helper, not a kernel part
			linux-image-*-dbg*) continue ;;
			linux-image-* | linux-binary-* | linux-modules-* | linux-base-* | linux-headers-* | linux-kbuild-* | linux-source-*)
				echo "$name $ver"; break ;;
			esac
		done
	done
}

# Closure of kernel packages from the given roots (name=version).
resolve_closure() {
	local tag=$1; shift
	local -A seen=()
	local queue=("$@") item name ver deps
	while [ ${#queue[@]} -gt 0 ]; do
		item=${queue[0]}; queue=("${queue[@]:1}")
		name=${item%%=*}; ver=${item#*=}
		[ "$ver" != "$item" ] || ver=""
		if [ -z "$ver" ]; then
			ver=$(apt_run "$tag" apt-cache policy "$name" 2>/dev/null | awk '/Candidate:/{print $2}')
			[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "$tag: no candidate for $name"
		fi
		[ -z "${seen[$name]:-}" ] || continue
		seen[$name]=$ver
		echo "$name=$ver"
		deps=$(apt_run "$tag" apt-cache show "$name=$ver" 2>/dev/null |
			awk '/^$/{exit} /^(Pre-)?Depends:/{sub(/^[^:]*: /,""); print}' | paste -sd, -)
		while read -r n v; do
			[ -n "$n" ] || continue
			queue+=("$n${v:+=$v}")
		done < <(printf '%s\n' "$deps" | kernel_deps)
	done
}

deb_file() { # name version -> path in the deb cache (any arch), or empty
	local v=${2//:/%3a}
	compgen -G "$CACHE/debs/${1}_${v}_*.deb" | head -1 || true
}

# apt-get update, retried: one failed connection must not turn into a SKIP.
apt_update() {
	local tag=$1 try
	for try in 1 2 3; do
		if apt_run "$tag" apt-get update -qq >"$CACHE/apt/$tag.update.log" 2>&1 &&
			! grep -qE '^(W|E): (Failed|Some index)' "$CACHE/apt/$tag.update.log"; then
			return 0
		fi
		log "$tag: reading the index failed (try $try): $(grep -E '^(W|E):' "$CACHE/apt/$tag.update.log" | head -1)"
		sleep $((try * 3))
	done
	return 1
}

setup_generation() {
	local tag=$1 envf="$CACHE/$1.env"
	if [ -f "$envf" ] && [ "$REFRESH" != 1 ] &&
		[ -n "$(find "$envf" -mtime -"$MAX_AGE" 2>/dev/null)" ]; then
		load_kernel "$tag"
		if [ -f "$K_DIR/.ready" ]; then
			log "$tag: $K_RELEASE (package $K_PKGVER from $K_SUITE), cached"
			return 0
		fi
	fi
	local aptag=$tag
	apt_setup "$aptag"
	log "$tag: reading the package index of $(suites_for "$aptag" | tr '|' ' ' | sed "s#$ARCHIVE ##g")"
	if ! apt_update "$aptag"; then
		if [ -f "$envf" ]; then
			load_kernel "$tag"
			if [ -f "$K_DIR/.ready" ]; then
				log "$tag: archive unreachable, using the cached $K_RELEASE"
				return 0
			fi
		fi
		skip "cannot read Debian's package index for $tag ($(grep -E '^(W|E):' "$CACHE/apt/$aptag.update.log" | head -1))"
	fi
	local ver
	ver=$(apt_run "$aptag" apt-cache policy linux-image-amd64 | awk '/Candidate:/{print $2}')
	if [ "$tag" = new ] && dpkg --compare-versions "${ver:-0}" lt 6.17; then
		log "new: trixie-backports has only ${ver:-nothing}; trying sid"
		aptag=sid; apt_setup sid
		apt_update sid || skip "cannot read sid's index ($(grep -E '^(W|E):' "$CACHE/apt/sid.update.log" | head -1))"
		ver=$(apt_run sid apt-cache policy linux-image-amd64 | awk '/Candidate:/{print $2}')
		dpkg --compare-versions "${ver:-0}" ge 6.17 || skip "Debian has no kernel >= 6.17 (sid: ${ver:-none})"
	fi
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || skip "$tag: linux-image-amd64 not in the index"
	# The newest kernel whose headers and source are in the index too (they
	# can lag behind the image, or be dropped first).
	local v ok=""
	for v in $(apt_run "$aptag" apt-cache madison linux-image-amd64 | awk -F'|' '{gsub(/ /,"",$2); print $2}'); do
		dpkg --compare-versions "$v" le "$ver" || continue
		if apt_run "$aptag" apt-cache show "linux-headers-amd64=$v" >/dev/null 2>&1 &&
			apt_run "$aptag" apt-cache show "linux-source=$v" >/dev/null 2>&1; then
			ok=$v; break
		fi
		log "$tag: linux-image-amd64 $v has no matching headers or source in the index; trying an older one"
	done
	[ -n "$ok" ] || skip "$tag: no kernel with headers and source in the index"
	ver=$ok
	if [ "$tag" = new ] && dpkg --compare-versions "$ver" lt 6.17; then
		skip "new: the newest kernel with headers and source is $ver (< 6.17)"
	fi

	local pkgs
	pkgs=$(resolve_closure "$aptag" "linux-image-amd64=$ver" "linux-headers-amd64=$ver" "linux-source=$ver")
	local release
	release=$(echo "$pkgs" | sed -n 's/^linux-image-\([0-9][^=]*-amd64\)=.*/\1/p' | head -1)
	[ -n "$release" ] || die "$tag: could not find the kernel release among: $pkgs"
	log "$tag: resolved linux-image-amd64 $ver -> $release"

	mkdir -p "$CACHE/debs"
	local p n v f
	for p in $pkgs; do
		n=${p%%=*}; v=${p#*=}
		case $n in linux-image-amd64 | linux-headers-amd64 | linux-source | linux-base-amd64 | linux-modules-amd64) continue ;; esac
		f=$(deb_file "$n" "$v")
		if [ -z "$f" ]; then
			log "$tag: downloading $n $v"
			(cd "$CACHE/debs" && apt_run "$aptag" apt-get download -qq "$n=$v") >/dev/null ||
				skip "apt-get download $n=$v failed"
		fi
	done

	local kdir="$CACHE/k/$release"
	if [ ! -f "$kdir/.unpacked" ]; then
		rm -rf "$kdir"; mkdir -p "$kdir/root"
		for p in $pkgs; do
			n=${p%%=*}; v=${p#*=}
			f=$(deb_file "$n" "$v"); [ -n "$f" ] || continue
			case $n in
			linux-source-*) unpack_source "$f" "$kdir" ;;
			*) log "$tag: unpacking $n"; dpkg-deb -x "$f" "$kdir/root" ;;
			esac
		done
		touch "$kdir/.unpacked"
	fi
	local moddir vmlinuz hdr
	local tree="$kdir/root"	# the packages' files, as under / on a Debian system
	moddir=$(ls -d "$tree/lib/modules/$release" "$tree/usr/lib/modules/$release" 2>/dev/null | head -1 || true)
	vmlinuz=$(ls "$tree/boot/vmlinuz-$release" "$moddir/vmlinuz" 2>/dev/null | head -1 || true)
	hdr="$tree/usr/src/linux-headers-$release"
	[ -d "$moddir" ] && [ -f "$vmlinuz" ] && [ -d "$hdr" ] || die "$tag: unpacked tree is incomplete in $kdir"
	fix_headers "$kdir" "$release"
	extract_elf "$kdir" "$vmlinuz"
	build_kbuild_tools "$kdir" "$release"

	cat >"$envf.tmp" <<EOT
K_TAG=$tag
K_SUITE="$(suites_for "$aptag" | tr "|" "\n" | awk "{print \$2}" | paste -sd+ -)"
K_RELEASE=$release
K_PKGVER=$ver
K_DIR=$kdir
K_VMLINUZ=$vmlinuz
K_BOOT=$( [ -f "$kdir/vmlinux.pvh" ] && echo "$kdir/vmlinux.pvh" || echo "$vmlinuz")
K_MODDIR=$moddir
K_HDR=$hdr
K_SRC=$kdir/src
K_PKGS="$(echo $pkgs)"
EOT
	mv "$envf.tmp" "$envf"
	touch "$kdir/.ready"
	log "$tag: $release (package $ver from $aptag) ready"
}

# From linux-source we need only what rebuilds the kbuild host tools and
# what builds vkms out of tree; extracting that part keeps the cache small.
unpack_source() {
	local deb=$1 kdir=$2 t
	log "unpacking the needed parts of $(basename "$deb")"
	t=$(mktemp -d "$kdir/srcdeb.XXXX")
	dpkg-deb -x "$deb" "$t"
	local tarball; tarball=$(ls "$t"/usr/src/linux-source-*.tar.* | head -1)
	mkdir -p "$kdir/src"
	# Every Kconfig (olddefconfig reads them all), and whole top-level dirs.
	tar -xf "$tarball" -C "$kdir/src" --strip-components=1 --wildcards \
		--wildcards-match-slash '*/Kconfig*' \
		--no-wildcards-match-slash '*/tools' '*/scripts' '*/include' '*/arch/x86' \
		'*/drivers/gpu/drm/vkms' '*/security/selinux/include' '*/certs' '*/Makefile' '*/Kbuild' ||
		die "could not unpack $tarball"
	rm -rf "$t"
}

# Under software emulation, decompressing bzImage costs seconds per boot;
# QEMU boots the uncompressed ELF directly through its PVH entry note.
extract_elf() {
	local kdir=$1 vmlinuz=$2
	[ -f "$kdir/vmlinux.pvh" ] && return 0
	[ -f "$kdir/src/scripts/extract-vmlinux" ] || return 0
	if bash "$kdir/src/scripts/extract-vmlinux" "$vmlinuz" >"$kdir/vmlinux.tmp" 2>/dev/null &&
		readelf -n "$kdir/vmlinux.tmp" 2>/dev/null | grep -q 'Unknown note type: (0x00000012)'; then
		mv "$kdir/vmlinux.tmp" "$kdir/vmlinux.pvh"
	else
		rm -f "$kdir/vmlinux.tmp"
	fi
}

# The headers packages refer to each other by absolute /usr/src and
# /usr/lib/linux-kbuild-* paths; point them into the cache.
fix_headers() {
	local kdir=$1 release=$2 root="$1/root" f
	[ -f "$kdir/.headers-fixed" ] && return 0
	grep -rlE '(^|[^/a-z])/usr/(src|lib)/linux-' "$root/usr/src" --include=Makefile --include='*.mk' 2>/dev/null |
		while read -r f; do
			sed -i -E "s#(^|[^/a-zA-Z0-9_.-])/usr/(src|lib)/linux-#\1$root/usr/\2/linux-#g" "$f"
		done
	# absolute symlinks, if any
	find "$root/usr/src" "$root/usr/lib" -maxdepth 3 -type l 2>/dev/null | while read -r f; do
		local tgt; tgt=$(readlink "$f")
		case $tgt in /usr/*) ln -sfn "$root$tgt" "$f" ;; esac
	done
	touch "$kdir/.headers-fixed"
}

# Newer suites' kbuild host tools need a newer glibc than Debian 12's:
# rebuild modpost, objtool and resolve_btfids from the same linux-source.
# Does any host tool of the headers (modpost and objtool are wrappers
# around *.real-* binaries) need a newer glibc than this machine has?
tools_need_newer_glibc() {
	local have f v
	have=$(ldd --version | head -1 | grep -o '[0-9]*\.[0-9]*$')
	for f in "$1"/scripts/mod/modpost* "$1"/tools/objtool/objtool* "$1"/tools/bpf/resolve_btfids/resolve_btfids; do
		[ -f "$f" ] || continue
		v=$(objdump -p "$f" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_//' | sort -t. -k2 -n | tail -1)
		[ -n "$v" ] && dpkg --compare-versions "$v" gt "$have" && return 0
	done
	return 1
}

build_kbuild_tools() {
	local kdir=$1 release=$2 tree="$1/root"
	local hdr="$tree/usr/src/linux-headers-$2"
	[ -f "$kdir/.tools-ok" ] && return 0
	local kb; kb=$(readlink -f "$hdr/scripts/..")
	if ! tools_need_newer_glibc "$kb"; then
		touch "$kdir/.tools-ok"; return 0
	fi
	log "rebuilding modpost, objtool, resolve_btfids for $release with gcc-12 (~1 min)"
	local src="$kdir/src" logf="$kdir/hosttools.log" m="make -C $kdir/src HOSTCC=gcc-12 CC=gcc-12 -j$(nproc)"
	[ -d "$src/scripts/mod" ] || die "linux-source for $release is missing scripts/"
	cp "$hdr/.config" "$src/.config"
	# modules_prepare builds modpost and objtool early and then stops at
	# parts of the tree we did not unpack (kernel/, ...): that is expected.
	$m olddefconfig >"$logf" 2>&1 || { tail -20 "$logf" >&2; die "olddefconfig failed ($logf)"; }
	$m modules_prepare >>"$logf" 2>&1 || true
	if [ -e "$kb/tools/bpf/resolve_btfids/resolve_btfids" ] && [ ! -x "$src/tools/bpf/resolve_btfids/resolve_btfids" ]; then
		$m -C "$src/tools/bpf/resolve_btfids" >>"$logf" 2>&1 || { tail -20 "$logf" >&2; die "resolve_btfids build failed"; }
	fi
	local t
	for t in scripts/mod/modpost tools/objtool/objtool tools/bpf/resolve_btfids/resolve_btfids; do
		[ -e "$kb/$t" ] || continue
		[ -x "$src/$t" ] || die "$t was not built ($logf)"
		rm -f "$kb/$t"; cp "$src/$t" "$kb/$t"
	done
	"$kb/scripts/mod/modpost" 2>&1 | grep -q 'GLIBC_' && die "modpost still does not run"
	"$kb/tools/objtool/objtool" 2>&1 | grep -q 'GLIBC_' && die "objtool still does not run"
	touch "$kdir/.tools-ok"
}

# busybox-static for the guests, from Debian 12's archive, unpacked into the
# cache (installing it on the host would remove a busybox package).
fetch_busybox() {
	[ -x "$BUSYBOX" ] && return 0
	apt_setup old
	[ -n "$(ls "$CACHE/apt/old/lists/" 2>/dev/null | grep Packages)" ] || apt_update old ||
		skip "cannot read Debian's package index for busybox-static"
	local f
	mkdir -p "$CACHE/debs"
	(cd "$CACHE/debs" && apt_run old apt-get download -qq busybox-static) >/dev/null ||
		skip "apt-get download busybox-static failed"
	f=$(ls -t "$CACHE"/debs/busybox-static_*.deb | head -1)
	rm -rf "$CACHE/tools/busybox"; mkdir -p "$CACHE/tools/busybox"
	dpkg-deb -x "$f" "$CACHE/tools/busybox"
	[ -x "$BUSYBOX" ] || die "no bin/busybox in $f"
	log "busybox: $(basename "$f" .deb)"
}

main() {
	mkdir -p "$CACHE"
	host_tools
	local gens=("$@"); [ ${#gens[@]} -gt 0 ] || gens=(old new)
	# The generations at once (each its own apt state and kernel tree; the
	# downloads are quick, the unpacking and tool builds take a core each),
	# busybox after the old one, whose index it reads. The first failure in
	# this order decides the status.
	local g pids=() rc=0 r
	for g in "${gens[@]}"; do
		if [ "$g" = old ]; then
			(setup_generation "$g"; fetch_busybox) & pids+=($!)
		else
			(setup_generation "$g") & pids+=($!)
		fi
	done
	case " ${gens[*]} " in *" old "*) ;; *) (fetch_busybox) & pids+=($!) ;; esac
	for r in "${pids[@]}"; do
		wait "$r" || { r=$?; [ $rc -ne 0 ] || rc=$r; }
	done
	[ $rc -eq 0 ] || exit $rc
	for g in "${gens[@]}"; do
		load_kernel "$g"; echo "kernel $g: $K_RELEASE (linux-image-amd64 $K_PKGVER, $K_SUITE)"
	done
}
main "$@"
