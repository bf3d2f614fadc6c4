#include "pdctl/config/mooncake_master_flags.hpp"

#include <algorithm>
#include <iterator>

namespace pdctl::config {
namespace {

constexpr MooncakeVersion V(int major, int minor, int patch, int post) {
    return MooncakeVersion{{major, minor, patch}, post};
}
constexpr std::optional<MooncakeVersion> kEvery = MooncakeVersion{};  // 0.3.0, the oldest tag read
constexpr std::optional<MooncakeVersion> kMain = std::nullopt;        // on main, in no release yet
constexpr std::optional<MooncakeVersion> kStill = std::nullopt;       // not removed

constexpr MooncakeMasterFlag F(std::string_view name, std::optional<MooncakeVersion> since,
                               std::optional<MooncakeVersion> removed_in,
                               std::string_view deprecated_for = {},
                               std::optional<MooncakeVersion> deprecated_since = std::nullopt) {
    return MooncakeMasterFlag{name, since, removed_in, deprecated_for, deprecated_since};
}

// Generated: for each tag, the names of DEFINE_*(name, ...) in mooncake-store/src/master.cpp; a row
// per name with the first tag that has it and the first later tag without it. Sorted by name.
// Deprecations are the flags whose help text says "deprecated, use X" (port, max_threads; since the
// tag that added X). Regenerate after a Mooncake release: docs/doctor.md#pd020.
const MooncakeMasterFlag kFlags[] = {
    F("allocation_strategy", V(0, 3, 10, 0), kStill),
    F("allow_evict_soft_pinned_objects", V(0, 3, 5, 0), kStill),
    F("batch_oplog_retry_timeout_sec", kMain, kStill),
    F("client_ttl", V(0, 3, 4, 0), kStill),
    F("cluster_id", V(0, 3, 5, 0), kStill),
    F("conf_path", V(0, 3, 6, 0), V(0, 3, 6, 1)),
    F("config_path", V(0, 3, 6, 1), kStill),
    F("cxl_path", V(0, 3, 9, 0), kStill),
    F("cxl_size", V(0, 3, 9, 0), kStill),
    F("default_kv_lease_ttl", V(0, 3, 2, 0), kStill),
    F("default_kv_soft_pin_ttl", V(0, 3, 5, 0), kStill),
    F("dynamic_replication_admission_qps_threshold", kMain, kStill),
    F("dynamic_replication_heat_window_seconds", kMain, kStill),
    F("dynamic_replication_max_memory_replicas", kMain, kStill),
    F("dynamic_replication_mode", kMain, kStill),
    F("enable_cxl", V(0, 3, 9, 0), kStill),
    F("enable_disk_eviction", V(0, 3, 8, 0), kStill),
    F("enable_gc", kEvery, V(0, 3, 6, 0)),
    F("enable_ha", V(0, 3, 3, 0), kStill),
    F("enable_http_metadata_server", V(0, 3, 6, 0), kStill),
    F("enable_kv_events", V(0, 3, 12, 0), kStill),
    F("enable_metadata_cleanup_on_timeout", V(0, 3, 12, 0), kStill),
    F("enable_metric_reporting", kEvery, kStill),
    F("enable_multi_tenants", V(0, 3, 12, 0), kStill),
    F("enable_offload", V(0, 3, 8, 0), kStill),
    F("enable_oplog", kMain, kStill),
    F("enable_snapshot", V(0, 3, 10, 0), kStill),
    F("enable_snapshot_restore", V(0, 3, 10, 0), kStill),
    F("etcd_endpoints", V(0, 3, 3, 0), kStill),
    F("eviction_high_watermark_ratio", V(0, 3, 3, 0), kStill),
    F("eviction_ratio", V(0, 3, 2, 0), kStill),
    F("global_file_segment_size", V(0, 3, 7, 1), kStill),
    F("ha_backend_connstring", V(0, 3, 10, 1), kStill),
    F("ha_backend_type", V(0, 3, 10, 1), kStill),
    F("http_metadata_server_host", V(0, 3, 6, 0), kStill),
    F("http_metadata_server_port", V(0, 3, 6, 0), kStill),
    F("kv_events_additional_salt", V(0, 3, 12, 0), kStill),
    F("kv_events_backend_id", V(0, 3, 12, 0), kStill),
    F("kv_events_bind_endpoint", V(0, 3, 12, 0), kStill),
    F("kv_events_block_size", V(0, 3, 12, 0), kStill),
    F("kv_events_dp_rank", V(0, 3, 12, 0), kStill),
    F("kv_events_emit_legacy_compat", V(0, 3, 12, 0), kStill),
    F("kv_events_emit_object_key", V(0, 3, 12, 0), kStill),
    F("kv_events_lora_name", V(0, 3, 12, 0), kStill),
    F("kv_events_model_name", V(0, 3, 12, 0), kStill),
    F("kv_events_queue_capacity", V(0, 3, 12, 0), kStill),
    F("kv_events_tenant_id", V(0, 3, 12, 0), kStill),
    F("local_hostname", V(0, 3, 3, 0), V(0, 3, 5, 0)),
    F("max_kv_soft_pin_ttl", kMain, kStill),
    F("max_retry_attempts", V(0, 3, 10, 0), kStill),
    F("max_threads", kEvery, kStill, "rpc_thread_num", V(0, 3, 4, 1)),
    F("max_total_finished_tasks", V(0, 3, 8, 1), kStill),
    F("max_total_pending_tasks", V(0, 3, 8, 1), kStill),
    F("max_total_processing_tasks", V(0, 3, 8, 1), kStill),
    F("memory_allocator", V(0, 3, 5, 0), kStill),
    F("metrics_host", kMain, kStill),
    F("metrics_port", kEvery, kStill),
    F("nof_eviction_high_watermark_ratio", V(0, 3, 11, 0), kStill),
    F("nof_eviction_ratio", V(0, 3, 11, 0), kStill),
    F("nof_heartbeat_failures_threshold", V(0, 3, 11, 0), kStill),
    F("nof_heartbeat_interval_sec", V(0, 3, 11, 0), kStill),
    F("nof_heartbeat_probe_timeout_ms", V(0, 3, 11, 0), kStill),
    F("offload_cap_ratio", V(0, 3, 12, 0), kStill),
    F("offload_force_evict", V(0, 3, 11, 0), kStill),
    F("offload_on_evict", V(0, 3, 11, 0), kStill),
    F("offloading_queue_limit", V(0, 3, 12, 0), kStill),
    F("oplog_batch_max_entries", kMain, kStill),
    F("oplog_poll_interval_ms", kMain, kStill),
    F("pending_task_timeout_sec", V(0, 3, 8, 1), kStill),
    F("pod_name", V(0, 3, 12, 0), kStill),
    F("pod_namespace", V(0, 3, 12, 0), kStill),
    F("port", kEvery, kStill, "rpc_port", V(0, 3, 4, 1)),
    F("processing_task_timeout_sec", V(0, 3, 8, 1), kStill),
    F("promotion_admission_threshold", V(0, 3, 11, 0), kStill),
    F("promotion_max_per_heartbeat", V(0, 3, 12, 0), kStill),
    F("promotion_on_hit", V(0, 3, 11, 0), kStill),
    F("promotion_queue_limit", V(0, 3, 11, 0), kStill),
    F("put_start_discard_timeout_sec", V(0, 3, 8, 0), kStill),
    F("put_start_release_timeout_sec", V(0, 3, 8, 0), kStill),
    F("quota_bytes", V(0, 3, 8, 0), kStill),
    F("root_fs_dir", V(0, 3, 6, 0), kStill),
    F("rpc_address", V(0, 3, 4, 1), kStill),
    F("rpc_conn_timeout_seconds", V(0, 3, 4, 1), kStill),
    F("rpc_enable_tcp_no_delay", V(0, 3, 4, 1), kStill),
    F("rpc_interface", V(0, 3, 10, 2), kStill),
    F("rpc_port", V(0, 3, 4, 1), kStill),
    F("rpc_thread_num", V(0, 3, 4, 1), kStill),
    F("snapshot_backend_type", V(0, 3, 10, 0), V(0, 3, 10, 1)),
    F("snapshot_backup_dir", V(0, 3, 10, 0), kStill),
    F("snapshot_catalog_backend_connstring", V(0, 3, 10, 1), kStill),
    F("snapshot_catalog_backend_type", V(0, 3, 10, 1), kStill),
    F("snapshot_catalog_store_connstring", V(0, 3, 10, 1), kStill),
    F("snapshot_catalog_store_type", V(0, 3, 10, 1), kStill),
    F("snapshot_child_timeout_seconds", V(0, 3, 10, 0), kStill),
    F("snapshot_interval_seconds", V(0, 3, 10, 0), kStill),
    F("snapshot_object_store_type", V(0, 3, 10, 1), kStill),
    F("snapshot_payload_backend_type", V(0, 3, 10, 1), kStill),
    F("snapshot_payload_store_type", V(0, 3, 10, 1), kStill),
    F("snapshot_retention_count", V(0, 3, 10, 0), kStill),
    F("tenant_quota_connector_type", V(0, 3, 12, 0), kStill),
    F("tenant_quota_connector_uri", V(0, 3, 12, 0), kStill),
};

}  // namespace

const MooncakeMasterFlag* find_mooncake_master_flag(std::string_view name) {
    const auto* found = std::lower_bound(
        std::begin(kFlags), std::end(kFlags), name,
        [](const MooncakeMasterFlag& flag, std::string_view key) { return flag.name < key; });
    return found != std::end(kFlags) && found->name == name ? found : nullptr;
}

FlagPresence presence(const MooncakeMasterFlag& flag, const MooncakeVersion& version) {
    // A flag on main only is in every version newer than the newest release the table knows.
    if (flag.since ? version < *flag.since : version <= kNewestMooncakeRelease) return FlagPresence::NotYet;
    if (flag.removed_in && version >= *flag.removed_in) return FlagPresence::Removed;
    return FlagPresence::Has;
}

bool mooncake_master_has(const MooncakeVersion& version, std::string_view name) {
    const auto* flag = find_mooncake_master_flag(name);
    return !flag || presence(*flag, version) == FlagPresence::Has;
}

std::string to_string(const MooncakeVersion& version) {
    std::string text = std::to_string(version.release[0]) + "." + std::to_string(version.release[1]) + "." +
                       std::to_string(version.release[2]);
    if (version.post > 0) text += ".post" + std::to_string(version.post);
    return text;
}

}  // namespace pdctl::config
