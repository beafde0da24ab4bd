#pragma once
// The communication of Megatron's context parallelism (ring attention) and expert parallelism (MoE
// all-to-all), per layer and micro-batch: what the pipeline simulator adds to a stage's compute.
#include "collectives.h"

namespace hetplan {

// Ring attention over a context-parallel group of `cp` ranks, each holding 1/cp of the sequence (Megatron's
// p2p ring, Transformer Engine's attention). The attention core runs in cp blocks, one per key/value chunk;
// while a block computes, the next chunk travels one hop, so the cp − 1 transfers hide behind the blocks and
// only the part of a transfer longer than its block shows: (cp − 1) · max(0, transfer − block). The backward
// sends each chunk with its gradient (twice the bytes) around the ring again, behind the backward's blocks.
// `chunkBytes`: one rank's keys and values for its micro-batch share; `attentionForward` / `attentionBackward`:
// the attention core's seconds for that share.
struct RingAttentionSeconds {
    double forward = 0, backward = 0; // exposed seconds
};
RingAttentionSeconds ringAttentionExposed(double chunkBytes, int cp, LinkParams link, double attentionForward,
                                          double attentionBackward);

// One MoE layer's token dispatch and combine over an expert-parallel group of `ep` ranks: two all-to-alls,
// each carrying half of `bytesPerRank` (what a rank sends in both, LayerSpec::expertAllToAllBytes for its
// tokens). The backward runs the same two with the gradients.
double expertAllToAllSeconds(double bytesPerRank, int ep, LinkParams link);

// The link an all-to-all sees when every group of `groups` runs one at once: each rank sends to every other
// member of its group at the same time (flows sharing NICs as in sharedBandwidths()), so a rank's send
// takes its slowest flow: bandwidth = (n − 1) × the slowest flow (allToAll() sends (n − 1)/n of the bytes),
// latency = the highest. Flows inside a node share the sender's own link (its NVLink or PCIe bandwidth split
// over its local peers). Groups may differ in size; n is the largest.
LinkParams allToAllLink(const Cluster& cluster, const std::vector<std::vector<int>>& groups);

} // namespace hetplan
