#pragma once
// Is a difference between two sets of bench samples more than noise? The tests `pdctl bench --vs`
// gates with (docs/bench.md, "The gate"): a one-sided Mann-Whitney U test on per-request samples, and
// a one-sided Welch t test on the logarithms of per-run values, each with the interval of the ratio
// later / before that inverts it. Pure; no randomness, so a comparison gives the same answer every time.

#include <vector>

namespace pdctl::load {

// The standard normal distribution: P(Z > z), and the z with P(Z <= z) = p (p in (0, 1)).
double normal_upper_tail(double z);
double normal_quantile(double p);
// Student's t with `df` degrees of freedom (df > 0, not necessarily whole): P(T > t), and its quantile.
double student_t_upper_tail(double t, double df);
double student_t_quantile(double p, double df);

// A ratio later / before, low <= high.
struct RatioInterval {
    double low = 1;
    double high = 1;
};

struct RankTest {
    double u = 0;         // pairs (b, l) with l > b, a tie counting one half
    double z = 0;         // after the tie and continuity corrections
    double p_value = 1;   // one-sided: `later` tends to be larger
    RatioInterval ratio;  // the shift of later against before as a ratio, confidence as asked
};

// One-sided Mann-Whitney U (`later` stochastically larger than `before`), normal approximation with the
// tie correction and a continuity correction of 1/2, as scipy.stats.mannwhitneyu(later, before,
// alternative="greater", method="asymptotic") computes it. The interval is the Hodges-Lehmann (Moses)
// interval of the shift on the logarithms, turned into a ratio: the order statistics of every pairwise
// log(l / b) that the same test, two-sided at 1 - `confidence`, does not reject. Values must be > 0.
// p_value 1 and a ratio interval of [1, 1] when either side is empty.
RankTest mann_whitney_greater(const std::vector<double>& before, const std::vector<double>& later,
                              double confidence);
// The smallest p the test can give for these sizes (every later value above every before value): when
// it is not below alpha, no data can make the test significant.
double mann_whitney_smallest_p(int before_count, int later_count);

struct MeanTest {
    double t = 0;
    double df = 0;        // Welch-Satterthwaite
    double p_value = 1;   // one-sided: `later` tends to be larger
    RatioInterval ratio;  // of the geometric means
};

// One-sided Welch t test on log values (each side at least 2 values, all > 0; else p_value 1): for
// per-run figures such as a run's throughput, of which there are only a few and each is already an
// average over many requests. Equal values on each side (no spread at all) give p 0 or 1 by the sign
// of the difference.
MeanTest welch_log_greater(const std::vector<double>& before, const std::vector<double>& later,
                           double confidence);

}  // namespace pdctl::load
