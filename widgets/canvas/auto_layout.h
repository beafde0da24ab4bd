#pragma once
// Auto-layout for the cluster canvas: one grid row group per device type, fastest types first, so a
// heterogeneous cluster reads as "which GPUs do I have" at a glance.
#include "core/model/cluster.h"

#include <QPointF>

#include <vector>

namespace hetplan {

// Top-left canvas position for every node (same order as cluster.nodes). Types are ordered by peak
// FLOP/s (descending, then name); inside a type the node order is kept. Each type starts a new row and
// wraps after `columns` nodes (0 = about sqrt(node count), at least 3).
std::vector<QPointF> autoLayoutPositions(const Cluster& cluster, int columns = 0);

} // namespace hetplan
