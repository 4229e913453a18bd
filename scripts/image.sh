#!/usr/bin/env bash
# udpfan's container image without a registry (docs/deployment.md, "Container image"):
# deploy/container/Dockerfile built by podman on a Debian 12 base made by mmdebstrap.
#
#   scripts/image.sh build      build (or reuse) the image; prints its name
#   scripts/image.sh podman ... podman with the storage and flags below (e.g. `image ls`)
#
# One recipe: the Dockerfile's `FROM debian:12` is the mmdebstrap root of
# tests/install/lab-chroot.sh imported as docker.io/library/debian:12 into a podman storage
# of its own, and `podman build --pull=never -f deploy/container/Dockerfile` builds it; the
# packages still come from the Debian archive (apt-get in the Dockerfile's RUN steps).
# Cached by content: the image is tagged localhost/udpfan-image:<hash of the base's name, the
# Dockerfile and every file of the build context it copies>; a tag already there is reused.
#
# Rootful podman without systemd: cgroupfs, a file events backend, overlay storage under
# ${UDPFAN_LAB_CACHE:-/var/cache/udpfan-lab}/podman. runc where installed (crun refuses a
# hybrid cgroup v1/v2 host); nofile and nproc ulimits at most the host's, as podman's defaults
# fail to be set without CAP_SYS_RESOURCE. Exit 77 when podman or the base is missing.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."

cache=${UDPFAN_LAB_CACHE:-/var/cache/udpfan-lab}
store=$cache/podman
PODMAN=(podman --root "$store/storage" --runroot /run/udpfan-podman --storage-driver overlay
	--cgroup-manager=cgroupfs --events-backend=file)
if command -v runc >/dev/null; then
	PODMAN+=(--runtime runc)
fi
nofile=$(ulimit -Hn)
if [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; then
	nofile=65536
fi
ULIMITS=(--ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)
# the paths deploy/container/Dockerfile copies from the build context
CONTEXT=(meson.build meson_options.txt app lib pmd_quirks scripts tests config deploy man systemd)

need() {
	command -v podman >/dev/null || {
		echo "image: podman is missing: apt-get install podman runc" >&2
		exit 77
	}
	[ "$(id -u)" = 0 ] || {
		echo "image: rootful podman: run as root" >&2
		exit 77
	}
}

key() {
	{
		echo "v1 $1"
		sha256sum deploy/container/Dockerfile
		git ls-files -co --exclude-standard -z -- "${CONTEXT[@]}" | sort -z |
			xargs -0 sha256sum
	} | sha256sum | cut -c1-16
}

build() {
	need
	local root base tag t0
	root=$(tests/install/lab-chroot.sh) || exit $?
	base=$(basename "$root")
	tag=localhost/udpfan-image:$(key "$base")
	mkdir -p "$store"
	exec 9>"$store/.lock"
	flock 9
	if "${PODMAN[@]}" image exists "$tag"; then
		echo "$tag"
		return
	fi
	t0=$(date +%s)
	# the base: the mmdebstrap root as debian:12, also tagged with the root's cache name
	if ! "${PODMAN[@]}" image exists "localhost/udpfan-base:$base"; then
		echo "image: importing $root as debian:12" >&2
		tar -C "$root" --exclude=./.udpfan-lab-ok -c . |
			"${PODMAN[@]}" import --change 'CMD ["bash"]' - docker.io/library/debian:12 >&2
		"${PODMAN[@]}" tag docker.io/library/debian:12 "localhost/udpfan-base:$base"
	fi
	echo "image: podman build -f deploy/container/Dockerfile -t $tag" >&2
	"${PODMAN[@]}" build --pull=never --network host "${ULIMITS[@]}" \
		-f deploy/container/Dockerfile -t "$tag" -t registry.example/udpfan:0.1.0 . >&2
	echo "image: built in $(($(date +%s) - t0)) s" >&2
	echo "$tag"
}

case ${1:-} in
build) build ;;
podman)
	shift
	need
	exec "${PODMAN[@]}" "$@"
	;;
flags) # the podman command and run ulimits, one word a line (tests/deploy/test_image.py)
	printf '%s\n' "${PODMAN[@]}" -- "${ULIMITS[@]}" ;;
*)
	sed -n '2,6p' "$0" >&2
	exit 2
	;;
esac
