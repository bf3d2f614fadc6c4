#include "pdctl/load/significance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace pdctl::load {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The root of a function that rises with x on [low, high], by bisection: slow but unconditional, and
// these quantiles are asked for a few times per comparison.
template <typename Rising>
double solve_rising(Rising rising, double target, double low, double high) {
    for (int step = 0; step < 200 && high - low > 1e-12 * std::max(1.0, std::fabs(low)); ++step) {
        const double middle = (low + high) / 2;
        (rising(middle) < target ? low : high) = middle;
    }
    return (low + high) / 2;
}

// The continued fraction of the regularized incomplete beta function, by the modified Lentz method.
double beta_continued_fraction(double a, double b, double x) {
    constexpr double kTiny = 1e-300;
    const auto guarded = [](double value) { return std::fabs(value) < kTiny ? kTiny : value; };
    double c = 1;
    double d = 1 / guarded(1 - (a + b) * x / (a + 1));
    double fraction = d;
    for (int m = 1; m <= 500; ++m) {
        // The even term, then the odd one.
        double term = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1 / guarded(1 + term * d);
        c = guarded(1 + term / c);
        fraction *= d * c;
        term = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 / guarded(1 + term * d);
        c = guarded(1 + term / c);
        const double change = d * c;
        fraction *= change;
        if (std::fabs(change - 1) < 1e-15) break;
    }
    return fraction;
}

// I_x(a, b), the regularized incomplete beta function.
double regularized_beta(double x, double a, double b) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    const double front =
        std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
    // The fraction converges fast only on the near side of the mean; the symmetry I_x(a,b) = 1 - I_1-x(b,a)
    // covers the far side.
    if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
    return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double kth_smallest(std::vector<double>& values, std::size_t k) {  // k from 1
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k - 1), values.end());
    return values[k - 1];
}

}  // namespace

double normal_upper_tail(double z) {
    return 0.5 * std::erfc(z / std::sqrt(2.0));
}

double normal_quantile(double p) {
    if (p <= 0) return -kInfinity;
    if (p >= 1) return kInfinity;
    return solve_rising([](double z) { return 1 - normal_upper_tail(z); }, p, -40, 40);
}

double student_t_upper_tail(double t, double df) {
    const double tail = 0.5 * regularized_beta(df / (df + t * t), df / 2, 0.5);
    return t >= 0 ? tail : 1 - tail;
}

double student_t_quantile(double p, double df) {
    if (p <= 0) return -kInfinity;
    if (p >= 1) return kInfinity;
    return solve_rising([df](double t) { return 1 - student_t_upper_tail(t, df); }, p, -1e6, 1e6);
}

RankTest mann_whitney_greater(const std::vector<double>& before, const std::vector<double>& later,
                              double confidence) {
    RankTest test;
    const double n1 = static_cast<double>(before.size());
    const double n2 = static_cast<double>(later.size());
    if (before.empty() || later.empty()) return test;

    // Ranks of the pooled values, ties sharing the mean of their ranks.
    struct Value {
        double value;
        bool later;
    };
    std::vector<Value> pooled;
    pooled.reserve(before.size() + later.size());
    for (double value : before) pooled.push_back({value, false});
    for (double value : later) pooled.push_back({value, true});
    std::sort(pooled.begin(), pooled.end(), [](const Value& a, const Value& b) { return a.value < b.value; });
    double later_rank_sum = 0;
    double tie_term = 0;  // sum of t^3 - t over groups of t equal values
    for (std::size_t first = 0; first < pooled.size();) {
        std::size_t past = first;
        while (past < pooled.size() && pooled[past].value == pooled[first].value) ++past;
        const double tied = static_cast<double>(past - first);
        const double rank = (static_cast<double>(first + 1) + static_cast<double>(past)) / 2;
        for (std::size_t i = first; i < past; ++i)
            if (pooled[i].later) later_rank_sum += rank;
        tie_term += tied * tied * tied - tied;
        first = past;
    }
    const double n = n1 + n2;
    test.u = later_rank_sum - n2 * (n2 + 1) / 2;
    const double mean = n1 * n2 / 2;
    const double variance = n1 * n2 / 12 * ((n + 1) - (n > 1 ? tie_term / (n * (n - 1)) : 0));
    if (variance > 0) {
        const double sd = std::sqrt(variance);
        test.z = (test.u - mean - 0.5) / sd;
        test.p_value = normal_upper_tail(test.z);

        // Moses: the k-th smallest and k-th largest of the n1 n2 pairwise log ratios bound the shift the
        // two-sided test at this confidence would not reject; fewer than one such pair: no bound.
        const double z = normal_quantile(1 - (1 - confidence) / 2);
        const double k = std::ceil(mean - 0.5 - z * sd);
        std::vector<double> differences;
        differences.reserve(before.size() * later.size());
        for (double b : before)
            for (double l : later) differences.push_back(std::log(l) - std::log(b));
        if (k >= 1) {
            const auto rank = static_cast<std::size_t>(k);
            test.ratio.low = std::exp(kth_smallest(differences, rank));
            test.ratio.high = std::exp(kth_smallest(differences, differences.size() + 1 - rank));
        } else {
            test.ratio = {0, kInfinity};
        }
    }
    return test;
}

double mann_whitney_smallest_p(int before_count, int later_count) {
    if (before_count <= 0 || later_count <= 0) return 1;
    const double n1 = before_count;
    const double n2 = later_count;
    const double sd = std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
    return normal_upper_tail((n1 * n2 / 2 - 0.5) / sd);
}

MeanTest welch_log_greater(const std::vector<double>& before, const std::vector<double>& later,
                           double confidence) {
    MeanTest test;
    if (before.size() < 2 || later.size() < 2) return test;
    const auto moments = [](const std::vector<double>& values) {
        std::vector<double> logs;
        logs.reserve(values.size());
        for (double value : values) logs.push_back(std::log(value));
        const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(logs.size());
        double squares = 0;
        for (double value : logs) squares += (value - mean) * (value - mean);
        return std::pair{mean, squares / static_cast<double>(logs.size() - 1)};
    };
    const auto [mean1, var1] = moments(before);
    const auto [mean2, var2] = moments(later);
    const double n1 = static_cast<double>(before.size());
    const double n2 = static_cast<double>(later.size());
    const double a = var1 / n1;
    const double b = var2 / n2;
    const double difference = mean2 - mean1;
    const double se = std::sqrt(a + b);
    if (!(se > 0)) {
        test.p_value = difference > 0 ? 0 : 1;
        test.ratio = {std::exp(difference), std::exp(difference)};
        return test;
    }
    test.t = difference / se;
    test.df = (a + b) * (a + b) / (a * a / (n1 - 1) + b * b / (n2 - 1));
    test.p_value = student_t_upper_tail(test.t, test.df);
    const double reach = student_t_quantile(1 - (1 - confidence) / 2, test.df) * se;
    test.ratio = {std::exp(difference - reach), std::exp(difference + reach)};
    return test;
}

}  // namespace pdctl::load
