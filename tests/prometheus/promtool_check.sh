#!/usr/bin/env bash
# `pdctl export prometheus` checked by Prometheus's own tool (ctest promtool_check, label prometheus):
#   1. every golden set (tests/golden/prometheus/STEM.*) passes `promtool check config`, `check rules`
#      and its generated `promtool test rules`;
#   2. the binary's `export prometheus -o DIR` of profiles/local is the golden set byte for byte;
#   3. a rule that cannot fire fails its test, and a config promtool must refuse is refused: checks
#      that pass everything fail this test.
# Debian's `prometheus` package provides promtool (.ci/install-deps); exits 77 (skip) without it,
# except under CI.
#   promtool_check.sh SOURCE_DIR PDCTL_BINARY
set -euo pipefail
source_dir=$1
pdctl=$2
if ! command -v promtool > /dev/null; then
    echo "skipped: no promtool (apt-get install --no-install-recommends prometheus)"
    [ -n "${CI:-}" ] && exit 1
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
golden=$source_dir/tests/golden/prometheus

# The three files under the names they refer to each other by.
lay_out() { # STEM DIR
    mkdir -p "$2"
    cp "$golden/$1.prometheus.yml" "$2/prometheus.yml"
    cp "$golden/$1.alerts.yml" "$2/pdctl-alerts.yml"
    cp "$golden/$1.alerts.test.yml" "$2/pdctl-alerts.test.yml"
}

for config in "$golden"/*.prometheus.yml; do
    stem=$(basename "$config" .prometheus.yml)
    dir=$work/$stem
    lay_out "$stem" "$dir"
    promtool check config "$dir/prometheus.yml"
    promtool check rules "$dir/pdctl-alerts.yml"
    promtool test rules "$dir/pdctl-alerts.test.yml"
done

# The binary writes what the goldens pin.
(cd "$source_dir" && "$pdctl" -c profiles/local/pdctl.yaml export prometheus -o "$work/exported")
cmp "$work/exported/prometheus.yml" "$golden/local.prometheus.yml"
cmp "$work/exported/pdctl-alerts.yml" "$golden/local.alerts.yml"
cmp "$work/exported/pdctl-alerts.test.yml" "$golden/local.alerts.test.yml"

# Teeth: a transfer-failure rule that needs two failures fails its test; a scrape timeout longer than
# the interval fails the config check.
lay_out local "$work/broken"
sed -i '/num_transfer_failed_reqs_total/s/ > 0/ > 1/' "$work/broken/pdctl-alerts.yml"
grep -q 'num_transfer_failed_reqs_total.*> 1' "$work/broken/pdctl-alerts.yml"
if promtool test rules "$work/broken/pdctl-alerts.test.yml" > "$work/broken.out" 2>&1; then
    echo "FAIL: a transfer-failure rule that cannot fire on one failure passed its test"
    exit 1
fi
grep -q "PDKVTransferFailures" "$work/broken.out"
sed -i 's/^  scrape_interval: 15s$/  scrape_interval: 15s\n  scrape_timeout: 1m/' "$work/broken/prometheus.yml"
if promtool check config "$work/broken/prometheus.yml" > "$work/broken-config.out" 2>&1; then
    echo "FAIL: a scrape timeout longer than the interval passed check config"
    exit 1
fi
echo "promtool: golden sets, the binary's export and the broken variants all behave"
