#pragma once
// The links a HetHub pipeline talks over, as the shared simulator sees them (core/sim/pipeline_sim.cpp):
// stage chunks are numbered across types (type 0's chunks first), and
// - a boundary send from chunk a to chunk b is dp·tp concurrent flows (replica j's tp rank t to its
//   counterpart), which share the NICs they leave and enter (sharedBandwidths), so a node's GPUs split its
//   NIC, and on the CPU path its capped rate; a send lasts as long as its slowest flow;
// - a chunk's gradient all-reduce is one ring per tp rank over the dp replicas, all at once;
// - the tied word-embedding copy is all-reduced between the first and the last chunk's counterparts.
// Each value is computed on first use and cached: the DFS asks for the same pairs again and again.
#include "hethub_space.h"

#include <unordered_map>
#include <vector>

namespace hetplan::hethub {

class ChunkLinks {
public:
    ChunkLinks(const Cluster& cluster, const std::vector<TypeGroup>& groups, const SpaceConfig& config);

    int chunk(int type, int k) const { return offset_[size_t(type)] + k; }
    // Bottleneck bandwidth and highest latency over the boundary's flows.
    const LinkParams& boundary(int a, int b) const;
    const LinkParams& tied(int a, int b) const;
    const LinkParams& data(int a) const { return data_[size_t(a)]; }

private:
    std::vector<int> gpusOf(int a) const;
    std::vector<std::vector<int>> pairs(int a, int b) const; // counterpart GPU pairs of two chunks

    const Cluster& cluster_;
    const std::vector<TypeGroup>& groups_;
    SpaceConfig config_;
    std::vector<int> offset_; // first chunk of each type; back() = chunk count
    std::vector<LinkParams> data_;
    // Keyed a · count + b, filled on first use: a table of every pair would be count² entries per config
    // (a million on a 1,000-layer model over 1,024 GPUs) where the search asks for a few thousand.
    mutable std::unordered_map<long long, LinkParams> boundary_, tied_;
};

} // namespace hetplan::hethub
