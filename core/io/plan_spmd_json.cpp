// The SPMD section of plan JSON (plan_spmd_json.h).
#include "plan_spmd_json.h"

#include "core/base/errors.h"
#include "core/base/qstrings.h"
#include "core/cost/spmd_costs.h"

#include <QJsonArray>

#include <cmath>
#include <string>
#include <vector>

namespace hetplan {

QJsonObject spmdToJson(const SpmdPlan& sp)
{
    QJsonArray prog, ratios;
    for (const std::string& line : sp.program)
        prog.append(toQString(line));
    for (const auto& row : sp.shardingRatios) {
        QJsonArray r;
        for (double v : row)
            r.append(v);
        ratios.append(r);
    }
    QJsonObject o{{"program", prog}, {"sharding_ratios", ratios}};
    if (!sp.segments.empty()) {
        QJsonArray segs;
        for (const std::string& n : sp.segments)
            segs.append(toQString(n));
        o["segments"] = segs;
    }
    if (!sp.instructions.empty()) {
        QJsonArray ins;
        for (const SpmdInstruction& i : sp.instructions) {
            QJsonObject j{{"kind", toQString(toString(i.kind))}, {"segment", i.segment}, {"group", toQString(i.group)},
                          {"backward", i.backward}, {"bytes", i.bytes}};
            if (i.kind == SpmdInstruction::Kind::Collective)
                j["collective"] = toQString(i.collective);
            if (i.fromSegment >= 0)
                j["from_segment"] = i.fromSegment;
            if (i.dimension >= 0)
                j["dimension"] = i.dimension;
            if (i.kind == SpmdInstruction::Kind::Compute)
                j["flops"] = i.flops;
            if (i.kind != SpmdInstruction::Kind::Collective)
                j["sharded"] = i.sharded;
            if (i.kind == SpmdInstruction::Kind::Load || i.parameter)
                j["parameter"] = i.parameter;
            ins.append(j);
        }
        o["instructions"] = ins;
    }
    if (!sp.dimensions.empty()) {
        QJsonArray dims;
        for (const SpmdDimension& d : sp.dimensions) {
            QJsonArray shards;
            for (long long v : d.shards)
                shards.append(double(v));
            dims.append(QJsonObject{{"label", toQString(d.label)},
                                    {"size", double(d.size)},
                                    {"segment", d.segment},
                                    {"shards", shards}});
        }
        o["dimensions"] = dims;
    }
    return o;
}

namespace {

SpmdInstruction spmdInstructionFromJson(const JsonReader& j, int segments, int dimensions)
{
    SpmdInstruction i;
    if (!parseSpmdInstructionKind(j.string("kind"), i.kind))
        j.fail("kind", "expected load, compute or collective");
    i.segment = j.integer("segment", 0);
    if (i.segment < 0 || (segments > 0 && i.segment >= segments))
        j.fail("segment", "no such row in sharding_ratios");
    i.group = j.string("group", "");
    i.backward = j.boolean("backward", false);
    i.bytes = j.number("bytes", 0);
    i.flops = j.number("flops", 0);
    i.sharded = j.boolean("sharded", false);
    i.parameter = j.boolean("parameter", false);
    i.fromSegment = j.integer("from_segment", -1);
    if (i.fromSegment < -1 || (segments > 0 && i.fromSegment >= segments))
        j.fail("from_segment", "no such row in sharding_ratios");
    if (i.kind == SpmdInstruction::Kind::Collective) {
        i.collective = j.string("collective");
        SpmdCollective c;
        if (!parseSpmdCollective(i.collective, c))
            j.fail("collective", "unknown collective '" + i.collective + "'");
    }
    if (i.bytes < 0 || i.flops < 0)
        j.fail(i.bytes < 0 ? "bytes" : "flops", "must not be negative");
    i.dimension = j.integer("dimension", -1);
    if (i.dimension < -1 || i.dimension >= dimensions)
        j.fail("dimension", "no such entry in dimensions");
    return i;
}

// A dimension's whole-unit shards: non-negative integers, one per GPU, that add up to its size.
SpmdDimension spmdDimensionFromJson(const JsonReader& j, int segments)
{
    SpmdDimension d;
    d.label = j.string("label", "");
    const double size = j.number("size");
    if (!(size >= 1) || size != std::floor(size) || size > 9e15)
        j.fail("size", "must be a positive integer");
    d.size = (long long)size;
    d.segment = j.integer("segment", 0);
    if (d.segment < 0 || (segments > 0 && d.segment >= segments))
        j.fail("segment", "no such row in sharding_ratios");
    const QJsonArray shards = j.array("shards");
    long long sum = 0;
    for (int g = 0; g < shards.size(); ++g) {
        const QJsonValue& v = shards.at(g);
        const std::string cell = "shards[" + std::to_string(g) + "]";
        if (!v.isDouble() || v.toDouble() < 0 || v.toDouble() != std::floor(v.toDouble()) || v.toDouble() > 9e15)
            j.fail(cell, "expected a non-negative integer");
        d.shards.push_back((long long)v.toDouble());
        sum += d.shards.back();
    }
    if (sum != d.size)
        j.fail("shards", "the shards add up to " + std::to_string(sum) + ", not the dimension's size " +
                             std::to_string(d.size));
    return d;
}

} // namespace

SpmdPlan spmdFromJson(const JsonReader& s)
{
    SpmdPlan sp;
    const QJsonArray prog = s.array("program");
    for (int i = 0; i < prog.size(); ++i) {
        if (!prog.at(i).isString())
            s.fail("program[" + std::to_string(i) + "]", "expected a string");
        sp.program.push_back(prog.at(i).toString().toStdString());
    }
    if (s.has("sharding_ratios")) {
        const QJsonArray rows = s.array("sharding_ratios");
        for (int i = 0; i < rows.size(); ++i) {
            if (!rows.at(i).isArray())
                s.fail("sharding_ratios[" + std::to_string(i) + "]", "expected an array");
            // Each row splits a segment's work over the GPUs: shares in [0, 1] that add up to 1.
            const std::string field = "sharding_ratios[" + std::to_string(i) + "]";
            std::vector<double> row;
            double sum = 0;
            const QJsonArray values = rows.at(i).toArray();
            for (int g = 0; g < values.size(); ++g) {
                const QJsonValue& v = values.at(g);
                const std::string cell = field + "[" + std::to_string(g) + "]";
                if (!v.isDouble())
                    s.fail(cell, "expected a number");
                if (!(v.toDouble() >= 0 && v.toDouble() <= 1))
                    s.fail(cell, "must be a share between 0 and 1");
                row.push_back(v.toDouble());
                sum += v.toDouble();
            }
            if (std::abs(sum - 1) > 1e-6)
                s.fail(field, "the shares add up to " + std::to_string(sum) + ", not 1");
            sp.shardingRatios.push_back(row);
        }
    }
    if (s.has("segments"))
        for (const QJsonValue& v : s.array("segments")) {
            if (!v.isString())
                s.fail("segments", "expected an array of strings");
            sp.segments.push_back(v.toString().toStdString());
        }
    if (s.has("dimensions")) {
        const QJsonArray dims = s.array("dimensions");
        for (int i = 0; i < dims.size(); ++i)
            sp.dimensions.push_back(
                spmdDimensionFromJson(s.element(dims, "dimensions", i), int(sp.shardingRatios.size())));
    }
    if (s.has("instructions")) {
        const QJsonArray ins = s.array("instructions");
        if (ins.size() != prog.size())
            s.fail("instructions", "needs one entry per program line");
        for (int i = 0; i < ins.size(); ++i)
            sp.instructions.push_back(spmdInstructionFromJson(s.element(ins, "instructions", i),
                                                              int(sp.shardingRatios.size()),
                                                              int(sp.dimensions.size())));
    }
    return sp;
}

} // namespace hetplan
