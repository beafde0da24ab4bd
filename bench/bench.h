#pragma once
// Shared by the engine benchmarks (Google Benchmark). Every benchmark reports wall-clock milliseconds:
// planners fan out over threads (parallelFor), so the calling thread's CPU time would understate them. A speed
// target, where there is one, is the benchmark's label ("target < 50 ms").
#include <benchmark/benchmark.h>

#include <string>

namespace hetplan::bench {

// For Benchmark::Apply: wall-clock time in milliseconds.
inline void wallMilliseconds(benchmark::internal::Benchmark* b) { b->Unit(benchmark::kMillisecond)->UseRealTime(); }

// "target < N ms" (or "no target" for targetMs <= 0), then `details` if any.
inline std::string targetLabel(double targetMs, const std::string& details = "")
{
    const std::string target = targetMs > 0 ? "target < " + std::to_string(int(targetMs)) + " ms" : "no target";
    return details.empty() ? target : target + "; " + details;
}

// The scale benchmarks are registered at run time; `includeSlow` also runs those marked slow (otherwise
// registered under Google Benchmark's DISABLED_ prefix, which skips them).
void registerScaleBenchmarks(bool includeSlow);

} // namespace hetplan::bench
