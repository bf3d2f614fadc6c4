# Shared settings of the SSH test cluster scripts (sourced by up.sh and down.sh).
# Host i (1..N) is network namespace ${PDT_PREFIX}i with eth0 = 10.77.0.i, plugged into bridge pdtbr0
# (10.77.0.254/24) in the root namespace through veth pdtv<i>. Only these addresses are ever used.
# A second cluster (bench/run uses pdb, pdbbr0, 10.78.0; the gcc pass of CI pdc, pdcbr0, 10.80.0: preset
# ci's environment) can run next to the test cluster without its
# lock by setting PDCTL_TEST_PREFIX, PDCTL_TEST_BRIDGE, PDCTL_TEST_SUBNET (a /24, first three octets)
# and PDCTL_TEST_CLUSTER_DIR; the defaults are the test cluster's.

PDT_DIR=${PDCTL_TEST_CLUSTER_DIR:-/tmp/pdctl-test-cluster}
PDT_PREFIX=${PDCTL_TEST_PREFIX:-pdt}
PDT_BRIDGE=${PDCTL_TEST_BRIDGE:-pdtbr0}
PDT_SUBNET=${PDCTL_TEST_SUBNET:-10.77.0}
PDT_VETH_PREFIX=${PDT_PREFIX}v
PDT_BRIDGE_ADDRESS=${PDT_SUBNET}.254
PDT_ENV_FILE=$PDT_DIR/cluster.env

pdt_log() { echo "tests/cluster: $*" >&2; }

# Names end up in interface names (15 characters at most) and in grep patterns: keep them plain.
if ! [[ "$PDT_PREFIX" =~ ^[a-z][a-z0-9]{0,5}$ && "$PDT_BRIDGE" =~ ^[a-z][a-z0-9]{0,14}$ &&
  "$PDT_SUBNET" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]]; then
  pdt_log "bad PDCTL_TEST_PREFIX/BRIDGE/SUBNET: '$PDT_PREFIX' '$PDT_BRIDGE' '$PDT_SUBNET'"
  exit 2
fi

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

# Podman on the hosts (used when podman, runc and catatonit are installed; PDCTL_TEST_PODMAN=0 turns it
# off). Every host gets its own container config, image store, containers and runtime state (these
# directories bind-mounted in its mount namespace) and its own /dev/shm (podman's lock table), so host
# 2 never sees host 1's containers. tests/cluster/podman-image.sh loads $PDT_IMAGE on every host.
PDT_CONTAINER_DIRS="/etc/containers /var/lib/containers /run/containers /run/libpod /run/runc"
PDT_IMAGE=localhost/pdctl/pdsim:test
# What podman on the hosts can leave in the root namespace: the mount points of the directories above,
# the libpod_parent cgroups (cgroups are not per host), and what a podman run in the root namespace
# writes. up.sh records which of these are absent before it starts (in $PDT_ROOT_ABSENT_FILE); down.sh
# removes exactly those: directories only when empty, cgroups only when no process is left in them,
# except the two known podman caches, which it deletes.
PDT_ROOT_CACHES="/var/lib/containers/cache /run/containers/networks"
pdt_root_leftovers() {
  printf '%s\n' $PDT_ROOT_CACHES $PDT_CONTAINER_DIRS /sys/fs/cgroup/libpod_parent
  for dir in /sys/fs/cgroup/*/; do echo "${dir}libpod_parent"; done
}
PDT_ROOT_ABSENT_FILE=$PDT_DIR/root-absent

pdt_have_podman() {
  command -v podman >/dev/null 2>&1 && command -v runc >/dev/null 2>&1 &&
    [ -x /usr/libexec/podman/catatonit ]
}

# Runs a command inside host $1 (its mount, UTS and network namespaces: what an SSH session there
# sees), entered through its recorded sshd.
pdt_in_host() {
  local i=$1 pid
  shift
  pid=$(cat "$PDT_DIR/host$i/sshd.pid" 2>/dev/null) || return 1
  pdt_is_our_sshd "$pid" || return 1
  nsenter --target "$pid" --mount --uts --net -- "$@"
}

# Writes one host's podman config into $1 (its /etc/containers). runc with cgroupfs: crun fails here
# ("cgroups in hybrid mode not supported") and there is no systemd; without the ulimits runc fails with
# "setrlimit ... Operation not permitted"; pids_limit 0 because this kernel cannot limit pids (podman
# would warn on every run); no journald, so logs and events go to files; the CNI network config (and
# its lock file) in the host's own /etc/containers, not in the shared /etc/cni/net.d. No registry is
# searched for short names and every image is accepted (the test image is loaded from an archive). The
# one registry a test may run, $PDT_REGISTRY on the bridge (tests/integration/ssh_pull_test.cpp), speaks
# plain HTTP, so it is marked insecure.
PDT_REGISTRY=${PDT_BRIDGE_ADDRESS}:5000
pdt_write_podman_config() {
  mkdir -p "$1"
  cat >"$1/containers.conf" <<'CONF'
# Written by tests/cluster/up.sh for one test host.
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
pids_limit = 0
log_driver = "k8s-file"

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[network]
network_config_dir = "/etc/containers/networks"
CONF
  echo '{"default": [{"type": "insecureAcceptAnything"}]}' >"$1/policy.json"
  cat >"$1/registries.conf" <<CONF
# Written by tests/cluster/up.sh: no registry is searched; images are loaded from archives, or pulled
# by fully qualified name from the test registry on the bridge (plain HTTP).
unqualified-search-registries = []
short-name-mode = "enforcing"

[[registry]]
location = "$PDT_REGISTRY"
insecure = true
CONF
  chmod 0644 "$1"/*
  chmod 0755 "$1"
}
