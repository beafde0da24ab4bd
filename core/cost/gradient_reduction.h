#pragma once
// One model of the data-parallel gradient reduction, used by the ZeRO and SPMD simulators (and the
// planners that price it) so that one data-parallel strategy costs the same whichever plan kind carries it.
//
// Frameworks do not reduce gradients tensor by tensor: they copy them into flat buckets and run one
// collective per bucket. DeepSpeed's engine (ZeRO 0-2, which is what the ZeRO plans and HAP's
// data-parallel programs export to) fills buckets of `reduce_bucket_size` = 5e8 elements and, with its
// default `overlap_comm: false`, reduces them after the backward, one after another. Each bucket pays the
// ring's per-step latency once; the bandwidth term depends only on the total bytes. A parameter whose
// gradient has several contributions (a head tied to the embedding) is reduced once, after they are summed
// into its .grad.
#include "collectives.h"

#include <vector>

namespace hetplan {

// DeepSpeed's default reduce_bucket_size, in gradient elements.
constexpr double kReduceBucketElements = 5e8;

// Bucket sizes in bytes for gradients of `gradientBytes` (in the order they become ready), buckets of at
// most `bucketBytes` (a gradient larger than a bucket gets one of its own, as DeepSpeed flushes first).
std::vector<double> gradientBuckets(const std::vector<double>& gradientBytes, double bucketBytes);

// `totalBytes` of gradients in full buckets of `bucketBytes` and one partial bucket (when only the total
// is known: tensors are small against DeepSpeed's bucket, so filling is nearly exact).
std::vector<double> evenBuckets(double totalBytes, double bucketBytes);

// Bytes of one bucket for a job: kReduceBucketElements gradients as they are reduced.
double reduceBucketBytes(double gradientBytesPerElement);

// Seconds to run `collective` (ringAllReduce, ringReduceScatter) on `buckets` one after another over
// `ranks` GPUs on `link`.
double bucketed(double (*collective)(double, int, LinkParams), const std::vector<double>& buckets, int ranks,
                LinkParams link);

} // namespace hetplan
