#pragma once
// Benchmarks (not tests): each prints "name: value unit" lines. Speed targets from the issues live here.
#include <chrono>
#include <functional>

namespace hetplan::bench {

// Best-of-`repeats` wall time of fn in seconds.
inline double timeBest(const std::function<void()>& fn, int repeats = 5)
{
    double best = 1e300;
    for (int i = 0; i < repeats; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

} // namespace hetplan::bench

void benchAnalytic();
void benchSimulator();
void benchAmp();
