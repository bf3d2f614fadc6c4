#!/usr/bin/env bash
# `pdctl export prometheus` checked by Prometheus's own tool (ctest promtool_check, label prometheus):
#   1. every golden set (tests/golden/prometheus/STEM.*) passes `promtool check config`, `check rules`
#      and its generated `promtool test rules`, `amtool check-config` (Alertmanager) and the blackbox
#      exporter's own `--config.check`;
#   2. the binary's `export prometheus -o DIR` of profiles/local is the golden set byte for byte;
#   3. a rule that cannot fire fails its test, and a config promtool must refuse is refused: checks
#      that pass everything fail this test.
# Debian's `prometheus` package provides promtool, `prometheus-alertmanager` amtool and
# `prometheus-blackbox-exporter` itself (.ci/install-deps); exits 77 (skip) without any of them, except
# under CI.
#   promtool_check.sh SOURCE_DIR PDCTL_BINARY
set -euo pipefail
source_dir=$1
pdctl=$2
for tool in promtool amtool prometheus-blackbox-exporter; do
    if ! command -v "$tool" > /dev/null; then
        echo "skipped: no $tool (apt-get install --no-install-recommends prometheus prometheus-alertmanager" \
            "prometheus-blackbox-exporter)"
        [ -n "${CI:-}" ] && exit 1
        exit 77
    fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
golden=$source_dir/tests/golden/prometheus

# The five files under the names they refer to each other by.
lay_out() { # STEM DIR
    mkdir -p "$2"
    cp "$golden/$1.prometheus.yml" "$2/prometheus.yml"
    cp "$golden/$1.alerts.yml" "$2/pdctl-alerts.yml"
    cp "$golden/$1.alerts.test.yml" "$2/pdctl-alerts.test.yml"
    cp "$golden/$1.blackbox.yml" "$2/blackbox.yml"
    cp "$golden/$1.alertmanager.yml" "$2/alertmanager.yml"
}

for config in "$golden"/*.prometheus.yml; do
    stem=$(basename "$config" .prometheus.yml)
    dir=$work/$stem
    lay_out "$stem" "$dir"
    promtool check config "$dir/prometheus.yml"
    promtool check rules "$dir/pdctl-alerts.yml"
    promtool test rules "$dir/pdctl-alerts.test.yml"
    amtool check-config "$dir/alertmanager.yml"
    prometheus-blackbox-exporter --config.check --config.file="$dir/blackbox.yml" 2>&1 | grep -q "Config file is ok"
done

# The binary writes what the goldens pin.
(cd "$source_dir" && "$pdctl" -c profiles/local/pdctl.yaml export prometheus -o "$work/exported")
cmp "$work/exported/prometheus.yml" "$golden/local.prometheus.yml"
cmp "$work/exported/pdctl-alerts.yml" "$golden/local.alerts.yml"
cmp "$work/exported/pdctl-alerts.test.yml" "$golden/local.alerts.test.yml"
cmp "$work/exported/blackbox.yml" "$golden/local.blackbox.yml"
cmp "$work/exported/alertmanager.yml" "$golden/local.alertmanager.yml"

# Teeth: a transfer-failure rule that needs two failures fails its test; a PDTargetDown that forgets the
# rank's probe (and would page twice for one dead rank) fails its masked test; a scrape timeout longer
# than the interval fails the config check.
lay_out local "$work/broken"
sed -i '/num_transfer_failed_reqs_total/s/ > 0/ > 1/' "$work/broken/pdctl-alerts.yml"
grep -q 'num_transfer_failed_reqs_total.*> 1' "$work/broken/pdctl-alerts.yml"
if promtool test rules "$work/broken/pdctl-alerts.test.yml" > "$work/broken.out" 2>&1; then
    echo "FAIL: a transfer-failure rule that cannot fire on one failure passed its test"
    exit 1
fi
grep -q "PDKVTransferFailures" "$work/broken.out"
lay_out local "$work/unmasked"
sed -i "/alert: PDTargetDown/,/for:/s/ unless on (cluster, group, node, rank) ([^)]*)'\$/'/" "$work/unmasked/pdctl-alerts.yml"
if grep -A1 'alert: PDTargetDown' "$work/unmasked/pdctl-alerts.yml" | grep -q unless; then
    echo "FAIL: the edit did not remove PDTargetDown's unless"
    exit 1
fi
if promtool test rules "$work/unmasked/pdctl-alerts.test.yml" > "$work/unmasked.out" 2>&1; then
    echo "FAIL: a PDTargetDown that fires beside PDRankDown passed its test"
    exit 1
fi
grep -q "PDTargetDown" "$work/unmasked.out"
sed -i 's/^  scrape_interval: 15s$/  scrape_interval: 15s\n  scrape_timeout: 1m/' "$work/broken/prometheus.yml"
if promtool check config "$work/broken/prometheus.yml" > "$work/broken-config.out" 2>&1; then
    echo "FAIL: a scrape timeout longer than the interval passed check config"
    exit 1
fi
echo "promtool, amtool, blackbox exporter: golden sets, the binary's export and the broken variants all behave"
