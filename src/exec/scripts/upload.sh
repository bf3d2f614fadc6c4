# shellcheck shell=sh
# upload.sh PATH MODE SIZE < FILE: the remote half of OpenSshExecutor::upload(); the file arrives on
# stdin, and only a complete one (SIZE bytes) gets its mode.
umask 077; rm -f "$1"; if ! cat > "$1"; then rm -f "$1"; exit 1; fi; got=$(wc -c < "$1"); if [ "$got" -ne "$3" ]; then rm -f "$1"; echo "only $got of $3 bytes arrived" >&2; exit 1; fi; chmod "$2" "$1"
