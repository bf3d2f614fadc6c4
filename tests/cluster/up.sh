#!/usr/bin/env bash
# Builds the SSH test cluster: N hosts (default 8, $PDCTL_TEST_HOSTS), each a network namespace
# ${PDT_PREFIX}<i> with address 10.77.0.<i> on bridge pdtbr0 (10.77.0.254/24; see lib.sh for other names), its own hostname and /root
# (unshare --uts --mount + bind mount) and its own real OpenSSH sshd (ed25519 + ECDSA host keys, the
# ed25519 one also as a host certificate; ports 22, 2222, and 2022 for the bastion only), plus a
# bastion host (host0, 10.77.0.250). Generates client keys (ed25519, ECDSA, RSA, a CA-signed user
# certificate) and known_hosts files, then writes $PDT_DIR/cluster.env
# (addresses, key paths, recorded pids) for the tests. tests/cluster/down.sh removes everything.
#
# Exit 77 (CTest: skipped) without root; in CI (CI set) a missing tool is a failure, not a skip.
# Optional: PDCTL_TEST_BIND_DIRS="/etc/containers /var/lib/containers" gives every host its own empty
# copy of those directories (bind-mounted inside the host's mount namespace).
# With podman, runc and catatonit installed (required in CI; PDCTL_TEST_PODMAN=0 turns it off), every
# host also gets its own podman: config, storage, run state and /dev/shm (see lib.sh); then
# tests/cluster/podman-image.sh loads the pdsim image on every host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

hosts=${PDCTL_TEST_HOSTS:-8}
if ! [[ "$hosts" =~ ^[0-9]+$ ]] || [ "$hosts" -lt 1 ] || [ "$hosts" -gt 200 ]; then
  pdt_log "PDCTL_TEST_HOSTS must be 1..200, got '$hosts'"
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  pdt_log "SKIP: the SSH test cluster needs root (network namespaces, bridge, sshd); run as root"
  exit 77
fi
missing=()
for tool in ip nsenter unshare setsid ssh-keygen /usr/sbin/sshd nft; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  pdt_log "missing tools: ${missing[*]} (run .ci/install-deps)"
  [ -n "${CI:-}" ] && exit 1
  exit 77
fi
podman=0
if [ "${PDCTL_TEST_PODMAN:-1}" != 0 ]; then
  if pdt_have_podman; then
    podman=1
  elif [ -n "${CI:-}" ]; then
    pdt_log "podman, runc or catatonit missing (run .ci/install-deps)"
    exit 1
  else
    pdt_log "podman, runc or catatonit missing: hosts without podman (the SSH scenario tests will skip)"
  fi
fi
case "$PDT_DIR" in *[[:space:]]*) pdt_log "PDCTL_TEST_CLUSTER_DIR must not contain spaces"; exit 2 ;; esac

started=$SECONDS
"$here/down.sh" # leftovers of an earlier run
trap 'status=$?; [ $status -ne 0 ] && { pdt_log "up.sh failed; tearing down"; "$here/down.sh"; }; exit $status' EXIT

umask 077
mkdir -p "$PDT_DIR/client" /run/sshd
chmod 0755 /run/sshd
# What podman could leave in the root namespace and is not there yet: down.sh removes exactly that.
if [ $podman -eq 1 ]; then
  for path in $(pdt_root_leftovers); do [ -e "$path" ] || echo "$path"; done >"$PDT_ROOT_ABSENT_FILE"
fi

# Client keys: the authorised ed25519 key, an authorised ECDSA key with a passphrase, an authorised RSA
# key (which libssh2 1.10 cannot use against OpenSSH >= 8.8), and an ed25519 key no host accepts.
client=$PDT_DIR/client
ssh-keygen -q -t ed25519 -N '' -C pdctl-test -f "$client/id_ed25519"
head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$client/ecdsa.passphrase"
ssh-keygen -q -t ecdsa -b 256 -N "$(cat "$client/ecdsa.passphrase")" -C pdctl-test-ecdsa -f "$client/id_ecdsa"
ssh-keygen -q -t rsa -b 2048 -N '' -C pdctl-test-rsa -f "$client/id_rsa"
ssh-keygen -q -t ed25519 -N '' -C pdctl-test-wrong -f "$client/id_wrong"
# Certificates: a user CA every host trusts (TrustedUserCAKeys) signs a key that no authorized_keys
# lists, so only the certificate logs in; a host CA signs every host's ed25519 key, and
# known_hosts_ca trusts the hosts through that CA alone (@cert-authority).
ssh-keygen -q -t ed25519 -N '' -C pdctl-test-user-ca -f "$client/user_ca"
ssh-keygen -q -t ed25519 -N '' -C pdctl-test-cert -f "$client/id_cert"
ssh-keygen -q -s "$client/user_ca" -I pdctl-test-cert -n root -V -5m:+1d "$client/id_cert.pub" 2>/dev/null
ssh-keygen -q -t ed25519 -N '' -C pdctl-test-host-ca -f "$PDT_DIR/host_ca"
echo "@cert-authority $PDT_SUBNET.*,[$PDT_SUBNET.*]:2022,[$PDT_SUBNET.*]:2222 $(cut -d' ' -f1-2 "$PDT_DIR/host_ca.pub")" \
  >"$PDT_DIR/known_hosts_ca"
# The bastion (host0 in the layout, never counted in PDT_HOSTS): every host's port 2022 answers only
# connections from it, so a node configured on port 2022 is reachable through the bastion alone.
bastion_address=$PDT_SUBNET.250
behind_port=2022
# What every sshd of the cluster has: keys only, root by key, no PAM, no DNS, keys under /tmp allowed.
sshd_common="PidFile none
StrictModes no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no"

# Network: bridge in the root namespace, one veth per host.
ip link add "$PDT_BRIDGE" type bridge stp_state 0 forward_delay 0
ip addr add "$PDT_BRIDGE_ADDRESS/24" dev "$PDT_BRIDGE"
ip link set "$PDT_BRIDGE" up

# plug_host NS VETH ADDRESS: a network namespace whose eth0 (ADDRESS/24) is plugged into the bridge.
plug_host() {
  ip netns add "$1"
  ip link add "$2" type veth peer name eth0 netns "$1"
  ip link set "$2" master "$PDT_BRIDGE" up
  nsenter --net="/run/netns/$1" ip addr add "$3/24" dev eth0
  nsenter --net="/run/netns/$1" ip link set eth0 up
  nsenter --net="/run/netns/$1" ip link set lo up
}

: >"$PDT_DIR/known_hosts"
env_lines=()
for i in $(seq 1 "$hosts"); do
  ns=${PDT_PREFIX}$i
  veth=$PDT_VETH_PREFIX$i
  address=$PDT_SUBNET.$i
  hostdir=$PDT_DIR/host$i
  mkdir -p "$hostdir/root/.ssh"

  plug_host "$ns" "$veth" "$address"
  nsenter --net="/run/netns/$ns" nft -f - <<NFT
table inet pdt_bastion {
  chain input {
    type filter hook input priority 0;
    tcp dport $behind_port ip saddr != $bastion_address reject with tcp reset
  }
}
NFT

  ssh-keygen -q -t ed25519 -N '' -C "$ns" -f "$hostdir/ssh_host_ed25519_key"
  ssh-keygen -q -s "$PDT_DIR/host_ca" -h -I "$ns" -n "$address" -V -5m:+1d "$hostdir/ssh_host_ed25519_key.pub" 2>/dev/null
  ssh-keygen -q -t ecdsa -b 256 -N '' -C "$ns" -f "$hostdir/ssh_host_ecdsa_key"
  cat "$client/id_ed25519.pub" "$client/id_ecdsa.pub" "$client/id_rsa.pub" >"$hostdir/root/.ssh/authorized_keys"
  # Only the ed25519 line goes to known_hosts although the host also has an ECDSA key: like many
  # real known_hosts files, and it proves the host-key preference is taken from known_hosts.
  echo "$address $(cut -d' ' -f1-2 "$hostdir/ssh_host_ed25519_key.pub")" >>"$PDT_DIR/known_hosts"
  echo "[$address]:$behind_port $(cut -d' ' -f1-2 "$hostdir/ssh_host_ed25519_key.pub")" >>"$PDT_DIR/known_hosts_behind"

  cat >"$hostdir/sshd_config" <<CFG
ListenAddress $address:22
ListenAddress $address:2222
ListenAddress $address:$behind_port
HostKey $hostdir/ssh_host_ed25519_key
HostKey $hostdir/ssh_host_ecdsa_key
HostCertificate $hostdir/ssh_host_ed25519_key-cert.pub
TrustedUserCAKeys $client/user_ca.pub
$sshd_common
PrintMotd no
PrintLastLog no
X11Forwarding no
MaxStartups 100:30:200
MaxSessions 64
# Tests deliver PATH and PDCTL_SYSFS_ROOT (fake nvidia-smi, fake sysfs) through ~/.ssh/environment.
PermitUserEnvironment yes
Subsystem sftp /usr/lib/openssh/sftp-server
CFG

  binds="mount --bind $hostdir/root /root"
  bind_dirs=${PDCTL_TEST_BIND_DIRS:-}
  if [ $podman -eq 1 ]; then
    bind_dirs="$bind_dirs $PDT_CONTAINER_DIRS"
    binds="$binds; mount -t tmpfs -o mode=1777,size=64m pdt-shm /dev/shm"
    pdt_write_podman_config "$hostdir/binds/etc/containers"
  fi
  # shellcheck disable=SC2086 # a list of paths: split on purpose; parents sort before their children
  for dir in $(printf '%s\n' $bind_dirs | sort -u); do
    mkdir -p "$hostdir/binds$dir" "$dir"
    binds="$binds; mount --bind $hostdir/binds$dir $dir"
  done
  # nsenter and unshare exec in place and sh execs sshd, so $! is sshd's pid. Not `ip netns exec`:
  # it remounts /sys, which hides the cgroup tree from container runtimes on the host.
  setsid nsenter --net="/run/netns/$ns" unshare --uts --mount --propagation private \
    sh -c "hostname $ns; $binds; exec /usr/sbin/sshd -D -e -f $hostdir/sshd_config" \
    </dev/null >"$hostdir/sshd.log" 2>&1 &
  pid=$!
  echo "$pid" >"$hostdir/sshd.pid"
  env_lines+=("PDT_HOST_${i}_NAME=$ns" "PDT_HOST_${i}_ADDRESS=$address" "PDT_HOST_${i}_NETNS=$ns"
    "PDT_HOST_${i}_VETH=$veth" "PDT_HOST_${i}_SSHD_PID=$pid" "PDT_HOST_${i}_DIR=$hostdir"
    "PDT_HOST_${i}_HOST_KEY=$hostdir/ssh_host_ed25519_key.pub")
done

# The bastion: host0, an sshd on port 22 only, no podman; root logs in with the ed25519 key.
bastion=$PDT_DIR/host0
mkdir -p "$bastion/root/.ssh"
plug_host "${PDT_PREFIX}0" "${PDT_VETH_PREFIX}0" "$bastion_address"
ssh-keygen -q -t ed25519 -N '' -C "${PDT_PREFIX}0" -f "$bastion/ssh_host_ed25519_key"
cp "$client/id_ed25519.pub" "$bastion/root/.ssh/authorized_keys"
echo "$bastion_address $(cut -d' ' -f1-2 "$bastion/ssh_host_ed25519_key.pub")" >>"$PDT_DIR/known_hosts_behind"
cat >"$bastion/sshd_config" <<CFG
ListenAddress $bastion_address:22
HostKey $bastion/ssh_host_ed25519_key
$sshd_common
AllowTcpForwarding yes
MaxStartups 100:30:200
MaxSessions 64
CFG
setsid nsenter --net="/run/netns/${PDT_PREFIX}0" unshare --uts --mount --propagation private \
  sh -c "hostname ${PDT_PREFIX}0; mount --bind $bastion/root /root; exec /usr/sbin/sshd -D -e -f $bastion/sshd_config" \
  </dev/null >"$bastion/sshd.log" 2>&1 &
echo $! >"$bastion/sshd.pid"
# Through the bastion, the hosts' keys on port 2022, and the bastion's own: besides the direct ones.
cat "$PDT_DIR/known_hosts" >>"$PDT_DIR/known_hosts_behind"

# Wait (bounded) until every sshd listens on its ports.
deadline=$((SECONDS + 20))
for i in 0 $(seq 1 "$hosts"); do
  address=$PDT_SUBNET.$i ports="22 2222 $behind_port"
  [ "$i" = 0 ] && address=$bastion_address ports=22
  for port in $ports; do
    until grep -q "Server listening on $address port $port" "$PDT_DIR/host$i/sshd.log" 2>/dev/null; do
      pid=$(cat "$PDT_DIR/host$i/sshd.pid")
      # Alive, not "is our sshd": the pid is our own child, so it cannot be reused, and until the
      # forked shell has exec'd setsid its command line is still up.sh's (the bastion, started just
      # before this loop, was once taken for dead that way).
      if ! pdt_alive "$pid"; then
        pdt_log "sshd of host $i exited:"; cat "$PDT_DIR/host$i/sshd.log" >&2; exit 1
      fi
      if [ $SECONDS -ge $deadline ]; then
        pdt_log "sshd of host $i does not listen on port $port after 20 s:"; cat "$PDT_DIR/host$i/sshd.log" >&2; exit 1
      fi
      sleep 0.02
    done
  done
done

{
  echo "# Written by tests/cluster/up.sh; removed by tests/cluster/down.sh."
  echo "PDT_DIR=$PDT_DIR"
  echo "PDT_HOSTS=$hosts"
  echo "PDT_BRIDGE=$PDT_BRIDGE"
  echo "PDT_BRIDGE_ADDRESS=$PDT_BRIDGE_ADDRESS"
  echo "PDT_SSH_PORT=22"
  echo "PDT_ALT_PORT=2222"
  echo "PDT_USER=root"
  echo "PDT_KEY=$client/id_ed25519"
  echo "PDT_ECDSA_KEY=$client/id_ecdsa"
  echo "PDT_ECDSA_PASSPHRASE_FILE=$client/ecdsa.passphrase"
  echo "PDT_RSA_KEY=$client/id_rsa"
  echo "PDT_WRONG_KEY=$client/id_wrong"
  echo "PDT_CERT_KEY=$client/id_cert"            # logs in only with its certificate, id_cert-cert.pub
  echo "PDT_CA_KNOWN_HOSTS=$PDT_DIR/known_hosts_ca"  # trusts the hosts only through the host CA
  echo "PDT_BASTION_ADDRESS=$bastion_address"
  echo "PDT_BASTION_NETNS=${PDT_PREFIX}0"
  echo "PDT_BEHIND_PORT=$behind_port"              # every host's sshd on this port answers the bastion only
  echo "PDT_BEHIND_KNOWN_HOSTS=$PDT_DIR/known_hosts_behind"
  echo "PDT_KNOWN_HOSTS=$PDT_DIR/known_hosts"
  echo "PDT_PODMAN=$podman"
  echo "PDT_REGISTRY=$PDT_REGISTRY"  # insecure in every host's registries.conf; no registry runs by default
  printf '%s\n' "${env_lines[@]}"
} >"$PDT_ENV_FILE.tmp"
chmod 0644 "$PDT_ENV_FILE.tmp"
mv "$PDT_ENV_FILE.tmp" "$PDT_ENV_FILE"
trap - EXIT
pdt_log "$hosts hosts up in $((SECONDS - started)) s; env: $PDT_ENV_FILE"
