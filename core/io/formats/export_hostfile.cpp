// DeepSpeed-style hostfile: "host slots=N" per node the plan uses, in rank order.
#include "core/io/exporters.h"

#include "core/io/formats/export_util.h"
#include "core/model/frameworks.h"

#include <map>

namespace hetplan {

std::string hostfile(const Plan& plan)
{
    exportutil::requirePlainNames(plan);
    // A hostfile starts one job over its hosts.
    if (const std::string why = mixedVendorProblem(plan, "launcher"); !why.empty())
        exportutil::refuse("gpus", why);
    exportutil::refuseScatteredRanks(plan);
    std::vector<std::string> order;
    std::map<std::string, int> perHost;
    for (const RankInfo& r : plan.ranks()) {
        if (!perHost.count(r.host))
            order.push_back(r.host);
        ++perHost[r.host];
    }
    std::string out;
    for (const std::string& h : order)
        out += h + " slots=" + std::to_string(perHost[h]) + "\n";
    return out;
}

void registerHostfileExporter(ExporterRegistry& registry)
{
    registry.add({{"hostfile", "Hostfile for DeepSpeed/MPI launchers (host slots=N)", "", ""}, hostfile, true});
}

} // namespace hetplan
