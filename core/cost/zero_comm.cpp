#include "zero_comm.h"

namespace hetplan {

double gradientReduceBytesPerParam(const Job& job)
{
    return job.precision == Precision::BF16 ? 4.0 : job.bytesPerValue();
}

double gradientReduction(double (*collective)(double, int, LinkParams), double params, const Job& job, int ranks,
                         LinkParams link)
{
    const double perElement = gradientReduceBytesPerParam(job);
    return bucketed(collective, evenBuckets(params * perElement, reduceBucketBytes(perElement)), ranks, link);
}

ZeroCollectiveSeconds zeroCollectiveSeconds(int stage, double params, const Job& job, int ranks, LinkParams link)
{
    const double weights = params * job.bytesPerValue();
    const double allReduce = gradientReduction(ringAllReduce, params, job, ranks, link);
    const double reduceScatter = gradientReduction(ringReduceScatter, params, job, ranks, link);
    ZeroCollectiveSeconds s;
    switch (stage) {
    case 0: s.perIteration = allReduce; break;
    case 1: s.perIteration = reduceScatter + ringAllGather(weights, ranks, link); break;
    case 2:
        s.perMicroStep = reduceScatter;
        s.perIteration = ringAllGather(weights, ranks, link);
        break;
    default: s.perMicroStep = 2 * ringAllGather(weights, ranks, link) + reduceScatter; break;
    }
    return s;
}

} // namespace hetplan
