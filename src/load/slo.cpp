#include "pdctl/load/slo.hpp"

#include "pdctl/load/row_stats.hpp"

namespace pdctl::load {

bool meets(const Slo& slo, const RequestRecord& record) {
    if (!record.ok()) return false;
    if (slo.ttft_s && record.ttft_s > *slo.ttft_s) return false;
    if (slo.e2e_s && record.e2e_s > *slo.e2e_s) return false;
    if (slo.tpot_s && record.tpot_s() > *slo.tpot_s) return false;
    if (slo.itl_s && !record.itl_s.empty() && percentile(record.itl_s, 99) > *slo.itl_s) return false;
    return true;
}

Goodput goodput(const Slo& slo, const std::vector<RequestRecord>& records, double duration_s) {
    Goodput out;
    out.requests = static_cast<int>(records.size());
    for (const auto& record : records) out.met += meets(slo, record) ? 1 : 0;
    if (out.requests > 0) out.attainment = static_cast<double>(out.met) / out.requests;
    if (duration_s > 0) out.requests_per_s = out.met / duration_s;
    return out;
}

}  // namespace pdctl::load
