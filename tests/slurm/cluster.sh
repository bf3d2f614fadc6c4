#!/usr/bin/env bash
# The SLURM test cluster of the slurm-labelled tests: 8 nodes pds1..pds8 on 10.66.0.0/24 (the names and
# addresses tests/profiles/slurm uses), built by up.sh, removed by down.sh (docs/slurm.md, "Measured on the real test cluster").
#   tests/slurm/cluster.sh up|down
# Exit 77 (CTest: skipped) without root or without the SLURM packages; in CI (CI set) that is a failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export SLURM_TEST_PREFIX=pds SLURM_TEST_N=8 SLURM_TEST_DIR=/tmp/slurm-test-pds
case "${1:-}" in
  up)
    skip() {
      echo "SKIP: $*"
      [ -n "${CI:-}" ] && exit 1
      exit 77
    }
    [ "$(id -u)" -eq 0 ] || skip "the SLURM test cluster needs root (network namespaces, munged, slurmd)"
    for tool in munged slurmctld slurmd sbatch squeue scancel nsenter; do
      command -v "$tool" >/dev/null || skip "no $tool here (.ci/install-deps installs slurmctld slurmd slurm-client munge)"
    done
    exec "$here/up.sh"
    ;;
  down) exec "$here/down.sh" ;;
  *)
    echo "usage: tests/slurm/cluster.sh up|down" >&2
    exit 2
    ;;
esac
