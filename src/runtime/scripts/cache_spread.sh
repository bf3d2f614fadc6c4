# shellcheck shell=sh
# cache_spread.sh: one node's part in `pdctl cache spread` (ops/kernel_cache.hpp), which copies a kernel
# cache from a node that has it to the nodes of the same fingerprint that lack it.
#   cache_spread.sh peek CLI CACHE      the key this node would use (its image ID, GPUs, driver), and
#                                       what its directory holds: "want KEY", "have KEY|-", "kernels
#                                       yes|no", "bytes N"
#   cache_spread.sh pack DIR TAR        the cache as one archive (not its last-start record):
#                                       "packed BYTES SHA256"
#   cache_spread.sh unpack CLI CACHE TAR  the archive in place of the directory's content, a cache of
#                                       another key set aside first (as a start does); refused when the
#                                       archive's key is not the one this node would use
# CACHE is the start scripts' parameter (_cache_prepare.sh): the directory, then the fingerprint's parts.
. ./_cache_prepare.sh
mode=$1; shift
case $mode in
  peek)
    cache_key "$2" "$1"
    have=-
    [ -f "$cache_dir/.pdctl-fingerprint" ] && have=$(sed -n 's/^key=//p' "$cache_dir/.pdctl-fingerprint")
    kernels=no
    if cache_holds_kernels; then kernels=yes; fi
    bytes=$(du -sb "$cache_dir" 2>/dev/null | cut -f1)
    printf 'want %s\nhave %s\nkernels %s\nbytes %s\n' "$cache_key" "${have:--}" "$kernels" "${bytes:-0}"
    ;;
  pack)
    tar -C "$1" --exclude=./.pdctl-last-start -cf "$2" . || { rm -f "$2"; exit 1; }
    sum=$(sha256sum "$2") || { rm -f "$2"; exit 1; }
    echo "packed $(stat -c %s "$2") ${sum%% *}"
    ;;
  unpack)
    cache_key "$2" "$1"
    tar=$3
    # The archive goes whatever happens: it was only ever a copy in transit.
    trap 'rm -f "$tar"' EXIT
    mkdir -p "$cache_dir.stale" || exit 1
    {
      flock -w 120 9 || :
      rm -rf "$cache_dir.new"
      if ! { mkdir -p "$cache_dir.new" && tar -C "$cache_dir.new" -xf "$tar"; }; then
        rm -rf "$cache_dir.new"
        exit 1
      fi
      got=$(sed -n 's/^key=//p' "$cache_dir.new/.pdctl-fingerprint" 2>/dev/null)
      if [ "$got" != "$cache_key" ]; then
        rm -rf "$cache_dir.new"
        echo "the cache is of key ${got:-unknown}, this node's is $cache_key" >&2
        exit 1
      fi
      cache_set_aside || exit 1
      rm -rf "$cache_dir"
      mv "$cache_dir.new" "$cache_dir" || exit 1
      echo "unpacked $cache_key $cache_dir${cache_aside:+; set aside $cache_aside}"
    } 9> "$cache_dir.stale/.lock"
    ;;
  *) echo "cache_spread.sh: unknown mode $mode" >&2; exit 2 ;;
esac
