#pragma once
// Ids for QUndoCommand::id(). The project has one undo stack, so every command kind that merges has an id
// of its own here: Qt merges a pushed command into the previous one only when both report the same id.

namespace hetplan {

enum CommandId {
    MoveNodesId = 1,
    EditJobId,
    // ChangeValue fields whose consecutive edits merge (spin-box clicks), one id per field.
    NodeGpusId,
    NodeIntraBandwidthId,
    NodeNicBandwidthId,
    LinkBandwidthId,
    LinkLatencyId,
    ClusterIntraLatencyId,
    ClusterInterLatencyId,
    ClusterCpuIntraBandwidthId,
    ClusterCpuInterBandwidthId,
    NodePriceId,
};

constexpr int kNeverMerges = -1; // QUndoCommand's "no id"

} // namespace hetplan
