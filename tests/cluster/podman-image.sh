#!/usr/bin/env bash
# Builds the test image $PDT_IMAGE (lib.sh) without any network and loads it on every host of the running
# SSH test cluster (tests/cluster/up.sh with podman). The image is a minimal root filesystem: pdsim as
# /usr/local/bin/pdsim (debug info stripped), /bin/sh (dash, for BOOTSTRAP) and the shared libraries
# ldd lists for both.
#   1. the root filesystem is a tarball made here (no container build, no RUN step, no network);
#   2. `podman import` on host 1, `podman save` to a docker-archive in $PDT_DIR/image;
#   3. `podman load` on every other host, in parallel (the same image id everywhere, as from a registry).
# Then it appends PDT_IMAGE=... to cluster.env. Every podman command runs inside a host (lib.sh
# pdt_in_host), never in the root namespace. down.sh removes the image with the host's storage.
#
# Usage: podman-image.sh PDSIM_BINARY. Exit 77 (CTest: skipped) without root or podman, except in CI.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

skip() {
  pdt_log "$1"
  [ -n "${CI:-}" ] && exit 1
  exit 77
}
pdsim=${1:-}
if [ -z "$pdsim" ] || [ ! -x "$pdsim" ]; then
  pdt_log "usage: podman-image.sh PDSIM_BINARY (got '${pdsim}')"
  exit 2
fi
[ "$(id -u)" -eq 0 ] || skip "SKIP: the podman test image needs root (it is loaded into the test hosts)"
[ -r "$PDT_ENV_FILE" ] || skip "the SSH test cluster is not up ($PDT_ENV_FILE missing): run tests/cluster/up.sh"
grep -qx 'PDT_PODMAN=1' "$PDT_ENV_FILE" || skip "SKIP: the test hosts have no podman (see up.sh)"
hosts=$(sed -n 's/^PDT_HOSTS=//p' "$PDT_ENV_FILE")

started=$(date +%s%N)
image_dir=$PDT_DIR/image
rootfs=$image_dir/rootfs
rm -rf "$image_dir"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/bin" "$rootfs/tmp"
chmod 1777 "$rootfs/tmp"
# Without debug info (a RelWithDebInfo pdsim is mostly DWARF): a smaller image loads faster.
strip --strip-debug -o "$rootfs/usr/local/bin/pdsim" "$pdsim" 2>/dev/null || cp "$pdsim" "$rootfs/usr/local/bin/pdsim"
cp /bin/dash "$rootfs/bin/sh"
# Every library at the path ldd resolves it to (the dynamic loader included), as a regular file.
libraries=$(for binary in "$pdsim" /bin/dash; do
  ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u)
for library in $libraries; do
  mkdir -p "$rootfs$(dirname "$library")"
  cp -L "$library" "$rootfs$library"
done
tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -cf "$image_dir/rootfs.tar" .
size_mb=$(($(stat -c %s "$image_dir/rootfs.tar") / 1048576))

# 1 host builds, the others load its archive.
archive=$image_dir/pdsim-image.tar
pdt_in_host 1 podman import --quiet \
  --change 'ENV=PATH=/usr/local/bin:/usr/bin:/bin' --change 'CMD=["pdsim"]' \
  --message "pdsim for the pdctl SSH scenario tests" "$image_dir/rootfs.tar" "$PDT_IMAGE" >/dev/null
pdt_in_host 1 podman save --quiet --format docker-archive -o "$archive" "$PDT_IMAGE"
built=$(date +%s%N)

pids=()
for i in $(seq 2 "$hosts"); do
  pdt_in_host "$i" podman load --quiet -i "$archive" >"$image_dir/load$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
id=$(pdt_in_host 1 podman image inspect --format '{{.Id}}' "$PDT_IMAGE")
for i in $(seq 1 "$hosts"); do
  got=$(pdt_in_host "$i" podman image inspect --format '{{.Id}}' "$PDT_IMAGE" 2>/dev/null || true)
  if [ "$got" != "$id" ]; then
    pdt_log "host $i: $PDT_IMAGE missing or different after podman load:"
    cat "$image_dir/load$i.log" >&2 2>/dev/null || true
    failed=1
  fi
done
[ $failed -eq 0 ] || exit 1
rm -rf "$rootfs" "$image_dir/rootfs.tar"

{
  grep -v '^PDT_IMAGE=' "$PDT_ENV_FILE"
  echo "PDT_IMAGE=$PDT_IMAGE"
} >"$PDT_ENV_FILE.tmp"
chmod 0644 "$PDT_ENV_FILE.tmp"
mv "$PDT_ENV_FILE.tmp" "$PDT_ENV_FILE"
done_at=$(date +%s%N)
pdt_log "$PDT_IMAGE (${size_mb} MB rootfs, id ${id:0:12}) built in $(((built - started) / 1000000)) ms," \
  "loaded on $((hosts - 1)) more hosts in $(((done_at - built) / 1000000)) ms"
