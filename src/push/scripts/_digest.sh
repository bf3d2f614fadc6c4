# shellcheck shell=sh
# Piece: digest FILE prints the SHA-256 as its first word. OpenSSL's assembly uses the CPU's SHA
# extensions and hashes about 4x faster than coreutils' sha256sum (Debian builds it without OpenSSL),
# which is most of a push of model-sized files; nodes without the openssl CLI fall back to sha256sum.
digest() { openssl dgst -sha256 -r <"$1" 2>/dev/null || sha256sum <"$1"; }
