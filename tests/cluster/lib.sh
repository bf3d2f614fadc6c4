# Shared settings of the SSH test cluster scripts (sourced by up.sh and down.sh).
# Host i (1..N) is network namespace ${PDT_PREFIX}i with eth0 = 10.77.0.i, plugged into bridge pdtbr0
# (10.77.0.254/24) in the root namespace through veth pdtv<i>. Only these addresses are ever used.

PDT_DIR=${PDCTL_TEST_CLUSTER_DIR:-/tmp/pdctl-test-cluster}
PDT_PREFIX=pdt
PDT_BRIDGE=pdtbr0
PDT_SUBNET=10.77.0
PDT_BRIDGE_ADDRESS=${PDT_SUBNET}.254
PDT_ENV_FILE=$PDT_DIR/cluster.env

pdt_log() { echo "tests/cluster: $*" >&2; }

# True when $1 is a live sshd started by these scripts: its command line names our sshd_config.
pdt_is_our_sshd() {
  local pid=$1 cmdline
  pdt_alive "$pid" || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  case "$cmdline" in *"$PDT_DIR/host"*"/sshd_config"*) return 0 ;; *) return 1 ;; esac
}

# True while $1 runs. A zombie counts as gone: where PID 1 reaps only now and then (as in some
# containers), the sshd we started and left to it stays a zombie for a while after it exited.
pdt_alive() {
  local stat rest
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  rest=${stat##*) }
  [ "${rest%% *}" != Z ]
}

# Waits (bounded) until no pid of the list runs.
pdt_wait_gone() {
  local deadline=$((SECONDS + $1)) pid alive
  shift
  while :; do
    alive=0
    for pid in "$@"; do pdt_alive "$pid" && alive=1; done
    [ $alive -eq 0 ] && return 0
    [ $SECONDS -ge $deadline ] && return 1
    sleep 0.05
  done
}
