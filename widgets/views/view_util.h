#pragma once
// Small formatting helpers shared by the plan views.
#include "core/model/cluster.h"

#include <QString>

#include <string>
#include <vector>

namespace hetplan::viewutil {

// "V100-16GB" → "V100" unless another device type in `all` would then read the same.
QString shortDevice(const std::string& type, const std::vector<std::string>& all);
std::vector<std::string> deviceTypes(const Cluster& cluster); // distinct, in node order
// "v100-0/2 (V100)": a node or GPU name with its short device type.
QString withDevice(const std::string& name, const std::string& type, const std::vector<std::string>& all);

// Time axis unit for a span in seconds: {"ms", 1e3} below 2 s, else {"s", 1}.
struct TimeUnit {
    QString name;
    double scale = 1;
};
TimeUnit timeUnitFor(double seconds);
QString formatDuration(double seconds); // "12.3 ms", "1.24 s", "85 µs"
QString formatGiB(double bytes, int decimals = 1);

} // namespace hetplan::viewutil
