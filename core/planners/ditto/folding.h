#pragma once
// Ditto's node folding (section 5.3): the heterogeneous cluster as a homogeneous one of the weakest
// device type. c_i = the whole model's F + B per micro-batch on one GPU of type i (section 5.3: summed
// layer costs); the weakest type w has the largest c_i; one GPU of type i counts as d_i weakest GPUs.
//   plain (5.3.1): d_i = round(c_w / c_i)
//   comm  (5.3.2): d_i = the d in 1 .. d_i(plain) minimising |p(d) - c_i|, with
//                  p(d) = c_w / d + c_across(d) + c_in(d), d = n' M + d' (n' whole nodes of M, d' left):
//                  c_across(d) = n' · l_across,
//                  c_in(d) = L d' / (n' M + d') · l_in[d'] + L n' M / (n' M + d') · l_in[M].
// l_in[d] and l_across are the mean over layers of the all-reduce of the layer's gradients (its
// parameters at the job's precision) on d GPUs of a weakest-type node and between two such nodes over
// their NICs: Oobleck's allreduce_in_node / allreduce_across_nodes profile, from core/cost's ring model.
// The virtual cluster has V = sum_i N_i d_i weakest GPUs (eq. 5) in nodes of M (the weakest type's).
#include "core/planners/common/template_placement.h"

#include <string>
#include <vector>

namespace hetplan {

struct Folding {
    std::string mode; // "plain" | "comm"
    int weakest = 0;  // type index w
    std::vector<int> d;
    std::vector<double> modelSeconds; // c_i
    int virtualGpus = 0;              // V
    int gpusPerNode = 1;              // M
};

// The communication terms of p(d) on the weakest type.
struct FoldingComm {
    std::vector<double> inNode; // l_in[d], d = 0 .. M (l_in[0] = l_in[1] = 0)
    double across = 0;          // l_across
    int layers = 0, gpusPerNode = 1;
    double weakSeconds = 0; // c_w
    double p(int d) const;
};

Folding foldPlain(const StageCosts& costs, const std::vector<TypeGroup>& groups);
FoldingComm foldingComm(const StageCosts& costs, const std::vector<TypeGroup>& groups, const Cluster& cluster,
                        const ModelSpec& model, const Job& job, int weakest);
Folding foldWithComm(const StageCosts& costs, const std::vector<TypeGroup>& groups, const Cluster& cluster,
                     const ModelSpec& model, const Job& job);

} // namespace hetplan
