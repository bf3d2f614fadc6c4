# shellcheck shell=sh
# shellcheck disable=SC2016 # the inner script's $1 and $2 are its own arguments, expanded by it
# pdctl drill partition: cuts this node off the network for a while, then restores it. The link that
# carries ADDRESS goes down a second after this script returned (so the SSH session that ran it ends
# cleanly), stays down SECONDS seconds and comes up again, from a process of its own that outlives the
# session. Prints the interface it took down.
#   drill_partition.sh ADDRESS SECONDS
set -eu
address=$1
seconds=$2
iface=$(ip -o -4 addr show to "$address" | awk '{ print $2; exit }')
if [ -z "$iface" ]; then
    echo "no interface of this node carries $address" >&2
    exit 3
fi
setsid sh -c 'sleep 1; ip link set dev "$1" down; sleep "$2"; ip link set dev "$1" up' drill-partition \
    "$iface" "$seconds" </dev/null >/dev/null 2>&1 &
echo "$iface"
