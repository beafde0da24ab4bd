#pragma once
// The editable fields of a node, a link and the cluster itself, for ChangeValue. Numeric fields merge
// consecutive edits; names, types and choices do not (each is a deliberate step of its own).
#include "change_value.h"

#include <QtGlobal>

namespace hetplan {

namespace nodeField {
inline constexpr auto name =
    memberField<&Node::name>(kNeverMerges, QT_TRANSLATE_NOOP("ClusterCommands", "Rename %1 to %2"));
inline constexpr auto deviceType =
    memberField<&Node::deviceType>(kNeverMerges, QT_TRANSLATE_NOOP("ClusterCommands", "Change device type of %1"));
inline constexpr auto gpus =
    memberField<&Node::gpus>(NodeGpusId, QT_TRANSLATE_NOOP("ClusterCommands", "Change GPU count of %1"));
inline constexpr auto intraBandwidth = memberField<&Node::intraBandwidth>(
    NodeIntraBandwidthId, QT_TRANSLATE_NOOP("ClusterCommands", "Change intra-node bandwidth of %1"));
inline constexpr auto nicBandwidth = memberField<&Node::nicBandwidth>(
    NodeNicBandwidthId, QT_TRANSLATE_NOOP("ClusterCommands", "Change NIC bandwidth of %1"));
inline constexpr auto pricePerGpuHour = memberField<&Node::pricePerGpuHour>(
    NodePriceId, QT_TRANSLATE_NOOP("ClusterCommands", "Change price per GPU-hour of %1"));
inline constexpr auto communicator =
    memberField<&Node::communicator>(kNeverMerges, QT_TRANSLATE_NOOP("ClusterCommands", "Change communicator of %1"));
// Node::failed, with one step text per direction (a failure and a recovery read differently in the
// history); each is a step of its own.
inline constexpr auto markFailed =
    memberField<&Node::failed>(kNeverMerges, QT_TRANSLATE_NOOP("ClusterCommands", "Mark %1 failed"));
inline constexpr auto markHealthy =
    memberField<&Node::failed>(kNeverMerges, QT_TRANSLATE_NOOP("ClusterCommands", "Mark %1 healthy"));
} // namespace nodeField

namespace linkField {
inline constexpr auto bandwidth =
    memberField<&Link::bandwidth>(LinkBandwidthId, QT_TRANSLATE_NOOP("ClusterCommands", "Change bandwidth of link %1"));
inline constexpr auto latency =
    memberField<&Link::latency>(LinkLatencyId, QT_TRANSLATE_NOOP("ClusterCommands", "Change latency of link %1"));
} // namespace linkField

namespace clusterField {
inline constexpr auto name =
    memberField<&ClusterProperties::name>(kNeverMerges, QT_TRANSLATE_NOOP("ClusterCommands", "Rename cluster to %2"));
inline constexpr auto description = memberField<&ClusterProperties::description>(
    kNeverMerges, QT_TRANSLATE_NOOP("ClusterCommands", "Change cluster description"));
inline constexpr auto intraLatency = memberField<&ClusterProperties::intraLatency>(
    ClusterIntraLatencyId, QT_TRANSLATE_NOOP("ClusterCommands", "Change intra-node latency"));
inline constexpr auto interLatency = memberField<&ClusterProperties::interLatency>(
    ClusterInterLatencyId, QT_TRANSLATE_NOOP("ClusterCommands", "Change inter-node latency"));
inline constexpr auto cpuIntraBandwidth = memberField<&ClusterProperties::cpuIntraBandwidth>(
    ClusterCpuIntraBandwidthId, QT_TRANSLATE_NOOP("ClusterCommands", "Change CPU-path intra-node bandwidth"));
inline constexpr auto cpuInterBandwidth = memberField<&ClusterProperties::cpuInterBandwidth>(
    ClusterCpuInterBandwidthId, QT_TRANSLATE_NOOP("ClusterCommands", "Change CPU-path inter-node bandwidth"));
} // namespace clusterField

} // namespace hetplan
