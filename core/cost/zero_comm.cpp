#include "zero_comm.h"

namespace hetplan {

double gradientReduceBytesPerParam(const Job& job)
{
    return job.precision == Precision::BF16 ? 4.0 : job.bytesPerValue();
}

ZeroCollectiveSeconds zeroCollectiveSeconds(int stage, double params, const Job& job, int ranks, LinkParams link)
{
    const double grads = params * gradientReduceBytesPerParam(job), weights = params * job.bytesPerValue();
    ZeroCollectiveSeconds s;
    switch (stage) {
    case 0: s.perIteration = ringAllReduce(grads, ranks, link); break;
    case 1: s.perIteration = ringReduceScatter(grads, ranks, link) + ringAllGather(weights, ranks, link); break;
    case 2:
        s.perMicroStep = ringReduceScatter(grads, ranks, link);
        s.perIteration = ringAllGather(weights, ranks, link);
        break;
    default: s.perMicroStep = 2 * ringAllGather(weights, ranks, link) + ringReduceScatter(grads, ranks, link); break;
    }
    return s;
}

} // namespace hetplan
