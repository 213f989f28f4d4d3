#!/usr/bin/env bash
# xputrace's OCI image, FROM scratch (deploy/Containerfile), with podman or,
# where podman is missing, buildah (XP_IMAGE_TOOL picks one). `make image`
# and `make image-save` run it after `make static`.
#   scripts/image.sh build NAME   NAME:VERSION and NAME:latest
#   scripts/image.sh save NAME    NAME:VERSION as an OCI archive,
#                                 build/xputrace-VERSION.oci.tar
# The image holds ./xputrace-static as /usr/bin/xputrace and, where the build
# has it, build/libxputrace-cuda.so as /usr/lib/xputrace/libxputrace-cuda.so.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	echo "usage: scripts/image.sh build|save NAME" >&2
	exit 2
}
[ $# -eq 2 ] || usage
cmd=$1 name=$2
version=$(sed -n 's/^#define XP_VERSION "\(.*\)"$/\1/p' src/core/msg.h)
[ -n "$version" ] || { echo "image: no XP_VERSION in src/core/msg.h" >&2; exit 1; }

tool=${XP_IMAGE_TOOL:-}
if [ -z "$tool" ]; then
	for t in podman buildah; do
		command -v $t > /dev/null && { tool=$t; break; }
	done
fi
case $tool in
podman | buildah) command -v "$tool" > /dev/null || { echo "image: $tool is not installed" >&2; exit 1; } ;;
"") echo "image: needs podman or buildah (Debian: apt-get install podman)" >&2; exit 1 ;;
*) echo "image: XP_IMAGE_TOOL is podman or buildah, not '$tool'" >&2; exit 2 ;;
esac

image_id() { # of $name:$version (podman images and buildah images alike)
	$tool images --noheading --no-trunc --format '{{.ID}}' "$name:$version" | sed -n 1p
}

build() {
	local ctx=build/image cuda=build/libxputrace-cuda.so what="xputrace $version"
	[ -x xputrace-static ] || { echo "image: ./xputrace-static is not built (make static)" >&2; exit 1; }
	rm -rf "$ctx/rootfs"
	install -D -m 0755 xputrace-static "$ctx/rootfs/usr/bin/xputrace"
	# its symbols stay (backtraces); the debug information is the build's
	strip --strip-debug "$ctx/rootfs/usr/bin/xputrace"
	if [ -f "$cuda" ]; then
		install -D -m 0644 "$cuda" "$ctx/rootfs/usr/lib/xputrace/libxputrace-cuda.so"
		what="$what and libxputrace-cuda.so"
	fi
	# podman build and buildah build take the same arguments. Dated by the
	# binary, the same build gives the same image; one it replaces is removed
	# (where nothing else uses it) rather than left behind untagged.
	old=$(image_id 2> /dev/null || true)
	$tool build --quiet --layers=false --timestamp "$(stat -c %Y xputrace-static)" \
		--build-arg "VERSION=$version" -f deploy/Containerfile \
		-t "$name:$version" -t "$name:latest" "$ctx" > /dev/null
	new=$(image_id)
	[ -z "$old" ] || [ "$old" = "$new" ] || $tool rmi "$old" > /dev/null 2>&1 || true
	echo "image: $name:$version and $name:latest ($what, $tool)"
}

save() {
	local out=build/xputrace-$version.oci.tar
	mkdir -p build
	rm -f "$out"
	if [ "$tool" = podman ]; then
		podman save --quiet --format oci-archive -o "$out" "$name:$version"
	else
		buildah push --quiet "$name:$version" "oci-archive:$out:$name:$version"
	fi
	echo "image: $out ($name:$version; podman load -i, or ctr -n k8s.io images import on a node)"
}

case $cmd in
build) build ;;
save) save ;;
*) usage ;;
esac
