// SPMD plans in the details view: the synthesized program as monospace text (one instruction per line
// with its sharding property, collective and work) and the sharding ratios per segment by device type.
// HAP's own section (device classes, ratios per class, search) is details/hap.cpp.
#include "plan_details_format.h"
#include "plan_details_sections.h"

#include "core/base/qstrings.h"

#include <QObject>

#include <algorithm>
#include <cmath>
#include <map>

namespace hetplan::details {

namespace {
// 3.5e9 -> "3.5 G" (decimal prefixes, 3 significant digits).
QString siPrefixed(double v)
{
    static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
    int p = 0;
    while (std::abs(v) >= 1000 && p < 6) {
        v /= 1000;
        ++p;
    }
    return QString::number(v, 'g', 3) + QLatin1Char(' ') + QLatin1String(prefixes[p]);
}

QString instructionWork(const SpmdInstruction& ins)
{
    const QString shard = ins.sharded ? tr(", sharded") : QString();
    switch (ins.kind) {
    case SpmdInstruction::Kind::Load:
        return (ins.parameter ? tr("load parameter %1B") : tr("load input %1B")).arg(siPrefixed(ins.bytes)) + shard;
    case SpmdInstruction::Kind::Compute:
        return tr("compute %1FLOP").arg(siPrefixed(ins.flops)) + (ins.sharded ? shard : tr(", replicated"));
    case SpmdInstruction::Kind::Collective:
        return (ins.fromSegment >= 0 ? tr("%1 from segment %2 %3B").arg(toQString(ins.collective)).arg(ins.fromSegment)
                                     : tr("%1 %2B").arg(toQString(ins.collective)))
            .arg(siPrefixed(ins.bytes));
    }
    return {};
}

// Device types in GPU order with the dense GPU indices of each.
std::vector<std::pair<std::string, std::vector<int>>> gpusByType(const Cluster& cluster, int gpus)
{
    std::vector<std::pair<std::string, std::vector<int>>> out;
    for (int g = 0; g < gpus && g < cluster.gpuCount(); ++g) {
        const std::string& type = cluster.nodeOf(g).deviceType;
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == type; });
        if (it == out.end())
            out.push_back({type, {g}});
        else
            it->second.push_back(g);
    }
    return out;
}

// "0.02148", or "0.0205–0.0215" when the GPUs of one type got different ratios.
QString ratioCell(const std::vector<double>& ratios, const std::vector<int>& gpus)
{
    double lo = 1e300, hi = -1e300;
    for (int g : gpus)
        if (g < int(ratios.size())) {
            lo = std::min(lo, ratios[g]);
            hi = std::max(hi, ratios[g]);
        }
    if (hi < lo)
        return QStringLiteral("–");
    return lo == hi ? number(lo) : QStringLiteral("%1–%2").arg(number(lo), number(hi));
}

DetailsBlock ratioTable(const SpmdPlan& spmd, const Cluster& cluster)
{
    const int gpus = spmd.shardingRatios.empty() ? 0 : int(spmd.shardingRatios.front().size());
    const auto types = gpusByType(cluster, gpus);
    QStringList columns{tr("Segment"), tr("Name")};
    for (const auto& [type, list] : types)
        columns << tr("%1 ×%2").arg(toQString(type)).arg(list.size());
    DetailsBlock b = table(tr("Sharding ratios per segment (share of a sharded tensor per GPU)"), columns);
    for (size_t s = 0; s < spmd.shardingRatios.size(); ++s) {
        QStringList row{QString::number(s), s < spmd.segments.size() ? toQString(spmd.segments[s]) : QString()};
        for (const auto& entry : types)
            row << ratioCell(spmd.shardingRatios[s], entry.second);
        b.rows.push_back(row);
    }
    return b;
}

// The ratio table as aligned text columns.
QString alignedTable(const DetailsBlock& b)
{
    std::vector<int> width(b.columns.size(), 0);
    auto widen = [&](const QStringList& cells) {
        for (int c = 0; c < int(cells.size()) && c < int(width.size()); ++c)
            width[c] = std::max(width[c], int(cells[c].size()));
    };
    widen(b.columns);
    for (const QStringList& r : b.rows)
        widen(r);
    auto line = [&](const QStringList& cells) {
        QStringList out;
        for (int c = 0; c < int(cells.size()) && c < int(width.size()); ++c)
            out << cells[c].leftJustified(width[c]);
        return out.join(QStringLiteral("  ")).trimmed();
    };
    QStringList lines{line(b.columns)};
    for (const QStringList& r : b.rows)
        lines << line(r);
    return lines.join(QLatin1Char('\n'));
}
} // namespace

} // namespace hetplan::details

namespace hetplan {

namespace {
// "  7  F [2] conv1  rebalance from segment 1 6.58 GB  " for each instruction, padded to common widths.
QStringList instructionPrefixes(const SpmdPlan& spmd)
{
    using namespace details;
    const int n = int(spmd.program.size());
    const int indexWidth = int(QString::number(std::max(n, 1)).size());
    const bool described = spmd.instructions.size() == spmd.program.size();
    int groupWidth = 0, workWidth = 0;
    for (int i = 0; described && i < n; ++i) {
        groupWidth = std::max(groupWidth, int(spmd.instructions[i].group.size()));
        workWidth = std::max(workWidth, int(instructionWork(spmd.instructions[i]).size()));
    }
    QStringList out;
    for (int i = 0; i < n; ++i) {
        QString line = QString::number(i + 1).rightJustified(indexWidth) + QStringLiteral("  ");
        if (described) {
            const SpmdInstruction& ins = spmd.instructions[i];
            line += QStringLiteral("%1 [%2] %3  %4  ")
                        .arg(ins.backward ? QLatin1Char('B') : QLatin1Char('F'))
                        .arg(ins.segment)
                        .arg(toQString(ins.group).leftJustified(groupWidth), instructionWork(ins).leftJustified(workWidth));
        }
        out << line;
    }
    return out;
}
} // namespace

QString spmdProgramText(const SpmdPlan& spmd, const Cluster& cluster)
{
    using namespace details;
    QStringList lines{tr("# %1 instructions, run by every GPU in this order.").arg(spmd.program.size()),
                      tr("# Columns: index, F/B = forward/backward, [segment] (its ratios below), layer group, "
                         "the work, then the instruction with its sharding property and collective.")};
    const QStringList prefixes = instructionPrefixes(spmd);
    for (int i = 0; i < int(spmd.program.size()); ++i)
        lines << prefixes[i] + toQString(spmd.program[i]);
    if (!spmd.shardingRatios.empty())
        lines << QString() << tr("# Sharding ratios per segment, by device type")
              << alignedTable(ratioTable(spmd, cluster));
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace hetplan

namespace hetplan::details {

DetailsSection spmdSection(const Plan& plan)
{
    DetailsSection s{QStringLiteral("spmd"), tr("SPMD program"), {}};
    DetailsBlock text;
    text.kind = DetailsBlock::Kind::Text;
    text.heading = tr("Synthesized program (%1 instructions)").arg(plan.spmd->program.size());
    text.note = tr("Select and copy (Ctrl+C), or use Copy section.");
    text.text = spmdProgramText(*plan.spmd, plan.cluster);
    s.blocks.push_back(std::move(text));
    if (!plan.spmd->shardingRatios.empty())
        s.blocks.push_back(ratioTable(*plan.spmd, plan.cluster));
    return s;
}

} // namespace hetplan::details
