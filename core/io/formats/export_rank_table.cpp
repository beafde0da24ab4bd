// The rank table: which GPU and host each global rank runs on, for placements a hostfile cannot express.
#include "core/io/exporters.h"

#include "core/io/formats/export_util.h"

namespace hetplan {

std::string rankTable(const Plan& plan)
{
    exportutil::requirePlainNames(plan); // host and GPU names go into the CSV unquoted
    std::string out = "rank,gpu,host,local_rank\n";
    for (const RankInfo& r : plan.ranks())
        out += std::to_string(r.rank) + "," + r.host + "/" + std::to_string(r.localRank) + "," + r.host + "," +
               std::to_string(r.localRank) + "\n";
    return out;
}

void registerRankTableExporter(ExporterRegistry& registry)
{
    registry.add({{"rank-table", "Rank table CSV (rank,gpu,host,local_rank)", "*.csv", ".csv", {"ranks"}}, rankTable, true});
}

} // namespace hetplan
