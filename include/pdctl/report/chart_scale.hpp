#pragma once
// Axes of the bench and sweep charts: a round top for a scale, so ticks read as 0, 25, 50, 75, 100.

namespace pdctl::report {

// 1, 2 or 5 times a power of ten, at least `value`; 1 for nothing to draw.
double nice_ceiling(double value);

}  // namespace pdctl::report
