#pragma once
// A planning request on a bundled example cluster and model, the way the CLI's `--cluster example:…
// --model example:… --gbs N` builds one (the job's sequence length is the model's). Header-only, so only
// the tests that use it link the example loaders. Also: the same request in its planner's paper space.
#include "core/io/examples.h"
#include "core/planners/megatron_space.h"
#include "core/planners/planner.h"

namespace hetplan::test {

inline PlanRequest exampleRequest(const std::string& cluster, const std::string& model, int globalBatch)
{
    PlanRequest req;
    req.cluster = exampleCluster(cluster);
    req.model = buildExampleModel(model);
    req.job.globalBatchSize = globalBatch;
    if (req.model.arch.sequence > 0)
        req.job.sequenceLength = req.model.arch.sequence;
    return req;
}

// The request limited to its planner's paper space: Megatron's options (core/planners/megatron_space.h) off,
// for tests of a paper's own algorithm, figures or metrics.
inline void usePaperSpace(std::map<std::string, std::string>& options)
{
    for (const char* family : kMegatronSpaceFamilies)
        options[family] = "false";
}
inline PlanRequest paperSpace(PlanRequest r)
{
    usePaperSpace(r.options);
    return r;
}

} // namespace hetplan::test
