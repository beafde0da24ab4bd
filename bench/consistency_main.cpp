// hetplan-consistency [SCENARIOS] [MAX_GPUS] [SEED] [TIME_LIMIT]: every planner on a seeded grid of generated
// scenarios (default 40 scenarios of 8-256 GPUs, seed 7, 10 s per planner); prints the consistency table
// (Markdown) and every violation, and exits 1 when there is one.
#include "consistency.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using namespace hetplan;

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    bench::GridShape shape;
    shape.scenarios = argc > 1 ? std::atoi(argv[1]) : 40;
    shape.maxGpus = argc > 2 ? std::atoi(argv[2]) : 256;
    shape.seed = argc > 3 ? unsigned(std::atoi(argv[3])) : 7;
    const double timeLimit = argc > 4 ? std::atof(argv[4]) : 10;
    shape.models = {"gpt2-amp", "opt-350m", "llama-0.5b", "gpt2-xl", "llama-1.1b", "bert-base"};
    const std::vector<bench::Scenario> grid = bench::consistencyGrid(shape);
    std::vector<bench::ScenarioRun> runs;
    for (const bench::Scenario& s : grid) {
        std::cerr << s.name << "\n";
        runs.push_back(bench::runGrid({s}, PlannerRegistry::instance().names(), timeLimit).front());
    }
    std::cout << "Grid: " << shape.scenarios << " scenarios of " << shape.minGpus << "-" << shape.maxGpus
              << " GPUs, seed " << shape.seed << ", " << timeLimit << " s per planner.\n\n"
              << bench::consistencyTable(runs) << "\n";
    const auto violations = bench::checkConsistency(runs);
    for (const bench::Violation& v : violations)
        std::cout << "- " << v.kind << ": " << v.planner << (v.containing.empty() ? "" : " vs " + v.containing)
                  << " on " << v.scenario << ": " << v.detail << "\n";
    std::cout << violations.size() << " violation(s)\n";
    return violations.empty() ? 0 : 1;
}
