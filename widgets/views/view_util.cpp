#include "view_util.h"

#include <algorithm>
#include <cmath>

namespace hetplan::viewutil {

QString shortDevice(const std::string& type, const std::vector<std::string>& all)
{
    auto prefix = [](const std::string& s) { return s.substr(0, s.find('-')); };
    const std::string mine = prefix(type);
    for (const std::string& other : all)
        if (other != type && prefix(other) == mine)
            return QString::fromStdString(type);
    return QString::fromStdString(mine);
}

QString withDevice(const std::string& name, const std::string& type, const std::vector<std::string>& all)
{
    return QString::fromStdString(name) + QStringLiteral(" (") + shortDevice(type, all) + QLatin1Char(')');
}

std::vector<std::string> deviceTypes(const Cluster& cluster)
{
    std::vector<std::string> out;
    for (const Node& n : cluster.nodes)
        if (std::find(out.begin(), out.end(), n.deviceType) == out.end())
            out.push_back(n.deviceType);
    return out;
}

TimeUnit timeUnitFor(double seconds)
{
    if (seconds < 2.0)
        return {QStringLiteral("ms"), 1e3};
    return {QStringLiteral("s"), 1.0};
}

QString formatDuration(double seconds)
{
    const double a = std::abs(seconds);
    if (a < 1e-3)
        return QString::number(seconds * 1e6, 'f', a < 1e-5 ? 2 : 1) + QStringLiteral(" µs");
    if (a < 1.0)
        return QString::number(seconds * 1e3, 'f', a < 1e-2 ? 3 : (a < 0.1 ? 2 : 1)) + QStringLiteral(" ms");
    return QString::number(seconds, 'f', a < 10 ? 3 : 2) + QStringLiteral(" s");
}

QString formatGiB(double bytes, int decimals) { return QString::number(bytes / 1073741824.0, 'f', decimals); }

} // namespace hetplan::viewutil
