#pragma once
// What the "Plan details" view shows for a plan, apart from how it is drawn: the planner's own sections
// (Plan::details) and the SPMD program, each turned into headed blocks (tables, monospace text, key/value
// trees). Plain data: no widget; PlanDetailsView draws it.
//
// Known sections get readable tables: ditto (folding per device type, recovery, recovered template,
// the Oobleck templates of the virtual cluster), oobleck (template table, T by stage count, instance),
// hethub (metrics with units, layout, stages, per-type homogeneous runs), hap (device classes, ratios per
// class and segment, search). Whatever a known builder does not read, and every unknown section, is shown
// as a key/value tree, so nothing a planner writes is hidden.
#include "core/model/plan.h"

#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <map>
#include <string>
#include <vector>

namespace hetplan {

struct DetailsTreeNode {
    QString key, value; // value empty for objects and arrays (their children say it)
    std::vector<DetailsTreeNode> children;
};

struct DetailsBlock {
    enum class Kind { Table, Text, Tree };
    Kind kind = Kind::Table;
    QString heading;
    QString note;                  // a line under the heading (may be empty)
    QStringList columns;           // Table: header
    std::vector<QStringList> rows; // Table: one list of cells per row, as many as columns
    QString text;                  // Text: monospace, one line per instruction
    std::vector<DetailsTreeNode> tree;
};

struct DetailsSection {
    QString key;   // "ditto", "oobleck", "hethub", "hap", "spmd", or any other section name
    QString title; // tab title
    std::vector<DetailsBlock> blocks;
};

struct PlanDetailsLayout {
    QString summary; // "ditto on ditto-ex3 · gpt2-xl"
    // The options the plan was made with, by their labels in the planner's declaration order:
    // "Options: Strategies simulated 5 · Layer DP paper"; empty when it has none.
    QString options;
    std::vector<DetailsSection> sections;
};

// The sections in display order: the SPMD program first (it is the plan), then the planner's own
// section, then the others by name.
PlanDetailsLayout layoutPlanDetails(const Plan& plan);

// One line per instruction: index, direction and segment, the instruction as the planner wrote it (its
// sharding property and collective), then its FLOP or bytes; the sharding ratios per segment follow.
QString spmdProgramText(const SpmdPlan& spmd, const Cluster& cluster);

// A plan's options as "label value" items: declared options by their PlannerOption label in declaration
// order (booleans as yes/no), then keys the planner does not declare (e.g. a plan from a newer hetplan)
// by key.
QStringList plannerOptionItems(const std::string& planner, const std::map<std::string, std::string>& options);

// A JSON value as tree nodes (objects by key, arrays by index; numbers to 6 significant digits).
std::vector<DetailsTreeNode> jsonTree(const QJsonObject& object);

// A section as plain text for the clipboard: headings, tables tab-separated, text verbatim, trees indented.
QString detailsSectionText(const DetailsSection& section);

} // namespace hetplan
