# shellcheck shell=sh
# Piece (read in by the start scripts):
#   cache_prepare CACHE CLI
#     CACHE is "" (the unit keeps no cache: nothing happens) or the unit's cache directory on its first
#     line, then what pdctl knows makes a compiled kernel valid, one NAME=VALUE per line. The node adds
#     what only it knows (the image's ID when a part names an image and CLI is set, the GPUs and their
#     driver, the CUDA version), names the whole by a hash (the key), and makes the directory hold that
#     key's cache: kept when its key matches; else a cache there of another key is set aside as
#     DIR.stale/OLDKEY (never loaded into another build) and one set aside earlier under this key comes
#     back, or the directory starts empty. Says one line, which pdctl reads (runtime/kernel_cache.hpp):
#       cache hit KEY DIR
#       cache miss KEY DIR
#       cache miss KEY DIR; set aside OLDKEY: NAME OLD -> NEW
#     A cache that holds nothing but its fingerprint is a miss: nothing was compiled into it yet. The
#     work is under a lock next to the directory: the ranks of a group on one file system share it.
# cache_key CACHE CLI: sets cache_dir, cache_parts (pdctl's and the node's) and cache_key.
cache_key() {
  cache_dir=$(printf '%s\n' "$1" | sed -n 1p)
  cache_parts=$(printf '%s\n' "$1" | sed 1d)
  cache_image=$(printf '%s\n' "$cache_parts" | sed -n 's/^image=//p')
  if [ -n "$cache_image" ] && [ -n "$2" ]; then
    cache_id=$("$2" image inspect --format '{{.Id}}' "$cache_image" 2>/dev/null) || cache_id=
    cache_parts="$cache_parts
image-id=${cache_id:-not pulled}"
  fi
  cache_gpus=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sort -u | paste -sd ';' -)
  cache_cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1)
  cache_parts="$cache_parts
gpus=${cache_gpus:-none}
cuda=${cache_cuda:-none}"
  cache_key=$(printf '%s\n' "$cache_parts" | sha256sum | cut -c1-16)
}
# cache_set_aside: a cache of another key in cache_dir goes to cache_dir.stale/OLDKEY (cache_aside,
# cache_why say which and why); one of cache_key set aside earlier comes back. Under the caller's lock.
cache_set_aside() {
  cache_old=
  [ -f "$cache_dir/.pdctl-fingerprint" ] && cache_old=$(sed -n 's/^key=//p' "$cache_dir/.pdctl-fingerprint")
  cache_aside=
  [ "$cache_old" != "$cache_key" ] || return 0
  if [ -d "$cache_dir" ] && [ -n "$(ls -A "$cache_dir")" ]; then
    cache_aside=${cache_old:-unnamed-$(date +%s)}
    rm -rf "$cache_dir.stale/$cache_aside"
    mv "$cache_dir" "$cache_dir.stale/$cache_aside" || return 1
    # The first part that differs names why: what an operator changed (image, flags, driver).
    cache_why=$(printf '%s\n' "$cache_parts" | while IFS= read -r part; do
      name=${part%%=*}
      was=$(sed -n "s/^$name=//p" "$cache_dir.stale/$cache_aside/.pdctl-fingerprint" 2>/dev/null | head -n 1)
      if [ "$name=$was" != "$part" ]; then echo "$name ${was:-unset} -> ${part#*=}"; break; fi
    done)
  fi
  if [ -d "$cache_dir.stale/$cache_key" ]; then mv "$cache_dir.stale/$cache_key" "$cache_dir" || return 1; fi
}
# cache_holds_kernels: cache_dir holds something compiled (more than pdctl's own files).
cache_holds_kernels() {
  for cache_entry in "$cache_dir"/* "$cache_dir"/.[!.]*; do
    case ${cache_entry##*/} in .pdctl-*) ;; *) if [ -e "$cache_entry" ]; then return 0; fi ;; esac
  done
  return 1
}
cache_prepare() {
  [ -n "$1" ] || return 0
  cache_key "$1" "$2"
  mkdir -p "$cache_dir.stale" || return 1
  {
    flock -w 120 9 || :
    cache_set_aside || return 1
    if [ "$cache_old" != "$cache_key" ]; then
      mkdir -p "$cache_dir" || return 1
      printf 'key=%s\n%s\n' "$cache_key" "$cache_parts" > "$cache_dir/.pdctl-fingerprint"
    fi
    cache_result=miss
    if cache_holds_kernels; then cache_result=hit; fi
    printf '%s %s\n' "$cache_result" "$(date +%s)" > "$cache_dir/.pdctl-last-start"
    echo "cache $cache_result $cache_key $cache_dir${cache_aside:+; set aside $cache_aside: ${cache_why:-fingerprint changed}}"
  } 9> "$cache_dir.stale/.lock"
}
