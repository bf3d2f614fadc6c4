# shellcheck shell=sh
# The doctor's listing of model directories (FILE002 in docs/doctor.md): for each directory given, a
# header line, then every regular file below it with its size in bytes, following links (a Hugging
# Face cache links a snapshot's files to its blobs). Paths reach the script as arguments, never as code.
#   memory<TAB>TOTAL BYTES               (the node's memory, /proc/meminfo: FILE003)
#   model<TAB>DIR<TAB>present|missing
#   file<TAB>RELATIVE PATH<TAB>BYTES
#   end
total=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo 2>/dev/null)
printf 'memory\t%s\n' "$((${total:-0} * 1024))"
for dir in "$@"; do
    if [ ! -d "$dir" ]; then
        printf 'model\t%s\tmissing\n' "$dir"
        continue
    fi
    printf 'model\t%s\tpresent\n' "$dir"
    # Bounded: a listing that hangs (a stale NFS mount) must not hold the start.
    if command -v timeout >/dev/null 2>&1; then
        timeout 15 find -L "$dir" -type f -printf 'file\t%P\t%s\n' 2>/dev/null
    else
        find -L "$dir" -type f -printf 'file\t%P\t%s\n' 2>/dev/null
    fi
done
printf 'end\n'
