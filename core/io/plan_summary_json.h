#pragma once
// The plan JSON's `summary` object (internal to plan_json.cpp; schema in resources/schema/plan.schema.json).
#include "core/base/json_reader.h"
#include "core/model/plan_summary.h"

#include <QJsonObject>

namespace hetplan {

QJsonObject summaryToJson(const PlanSummary& s);
// One GPU's memory breakdown: {weights, gradients, optimizer, activations, gradient_buffer,
// allocator_reserve, communicators, context, total} in bytes (total is written for readers, checked on read).
QJsonObject gpuMemoryToJson(const GpuMemory& m);
GpuMemory gpuMemoryFromJson(const JsonReader& r);
PlanSummary summaryFromJson(const JsonReader& r);

} // namespace hetplan
