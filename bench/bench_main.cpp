// hetplan-bench: the engine benchmarks (Google Benchmark; its --benchmark_* flags apply, e.g.
// --benchmark_filter=amp). Extra modes:
//   hetplan-bench --write-scale-inputs DIR [GPUS]   writes the scale benchmarks' cluster and model files
//   hetplan-bench --include-slow                    also runs the scale benchmarks marked slow
#include "bench.h"
#include "scale_inputs.h"

#include "core/base/errors.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

int writeScaleInputs(int argc, char** argv)
{
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: hetplan-bench --write-scale-inputs DIR [GPUS (default 1024)]\n");
        return 2;
    }
    try {
        const int gpus = argc == 4 ? std::stoi(argv[3]) : 1024;
        using namespace hetplan::bench;
        const auto [cluster, model] = writeScaleInputs(argv[2], scaleClusterShape(gpus));
        std::printf("%s\n%s\ntry: hetplan-cli plan --cluster %s --model %s --gbs 1024 --planner megatron\n",
                    cluster.c_str(), model.c_str(), cluster.c_str(), model.c_str());
        return 0;
    } catch (const hetplan::InputError& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
    } catch (const std::logic_error&) { // std::stoi
        std::fprintf(stderr, "error: GPUS: not a number: %s\n", argv[3]);
    }
    return 2;
}

// Removes `flag` from argv; true if it was there.
bool takeFlag(int& argc, char** argv, const char* flag)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], flag) == 0) {
            for (int j = i; j + 1 < argc; ++j)
                argv[j] = argv[j + 1];
            --argc;
            return true;
        }
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    if (argc >= 2 && std::strcmp(argv[1], "--write-scale-inputs") == 0)
        return writeScaleInputs(argc, argv);
    hetplan::bench::registerScaleBenchmarks(takeFlag(argc, argv, "--include-slow"));
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
