#include "pdctl/report/chart_scale.hpp"

#include <cmath>

namespace pdctl::report {

double nice_ceiling(double value) {
    if (value <= 0) return 1;
    const double power = std::pow(10, std::floor(std::log10(value)));
    for (double step : {1.0, 2.0, 5.0, 10.0})
        if (step * power >= value) return step * power;
    return 10 * power;
}

}  // namespace pdctl::report
