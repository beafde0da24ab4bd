#include "pipeline_p2p.h"

#include <algorithm>

namespace hetplan {

BoundaryTraffic boundaryTraffic(const Job& job, double fullBytes, int senderTp, int receiverTp, bool moeModel)
{
    BoundaryTraffic t;
    const int tp = std::max(1, senderTp);
    t.bytesPerRank = fullBytes;
    if (tp == 1)
        return t;
    if (job.runsSequenceParallel(tp, moeModel)) {
        t.bytesPerRank = fullBytes / tp;
        return t;
    }
    if (job.framework == Framework::MegatronCore)
        return t;
    t.bytesPerRank = fullBytes / tp;
    t.gatherRanks = std::max(1, receiverTp);
    t.gatherBytes = t.gatherRanks > 1 ? fullBytes : 0;
    return t;
}

double boundaryGatherSeconds(const BoundaryTraffic& t, LinkParams receiverGroupLink)
{
    return ringAllGather(t.gatherBytes, t.gatherRanks, receiverGroupLink);
}

} // namespace hetplan
