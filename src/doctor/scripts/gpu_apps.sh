# shellcheck shell=sh
# gpu_apps.sh MARKER: the GPU compute processes of this node as nvidia-smi lists them (CSV: pid,
# process_name, used_gpu_memory), or MARKER alone where there is no nvidia-smi (doctor/gpu_use.hpp
# parses it; MARKER is a line nvidia-smi itself never prints).
command -v nvidia-smi >/dev/null 2>&1 || { printf '%s\n' "$1"; exit 0; }
exec nvidia-smi --query-compute-apps=pid,process_name,used_gpu_memory --format=csv
