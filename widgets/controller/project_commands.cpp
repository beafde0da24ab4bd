#include "project_commands.h"

#include <iterator>

namespace hetplan {

unsigned editedFields(const NamedJob& before, const NamedJob& after)
{
    const Job& a = before.job;
    const Job& b = after.job;
    const bool differs[] = {a.globalBatchSize != b.globalBatchSize,
                            a.sequenceLength != b.sequenceLength,
                            a.precision != b.precision,
                            a.optimizerBytesPerParam != b.optimizerBytesPerParam,
                            a.zeroStage != b.zeroStage,
                            a.schedule != b.schedule,
                            a.recompute != b.recompute,
                            a.backwardFactor != b.backwardFactor};
    unsigned bits = 0;
    for (size_t i = 0; i < std::size(differs); ++i)
        if (differs[i])
            bits |= 1u << i;
    return bits;
}

} // namespace hetplan
