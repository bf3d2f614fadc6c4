# shellcheck shell=sh
# slurm_write_file.sh PATH < CONTENT: writes stdin to PATH atomically, creating its directory;
# umask 077, so env files are 0600.
umask 077
mkdir -p "${1%/*}" || exit 1
cat > "$1.new" && mv "$1.new" "$1"
