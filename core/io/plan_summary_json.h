#pragma once
// The plan JSON's `summary` object (internal to plan_json.cpp; schema in resources/schema/plan.schema.json).
#include "core/base/json_reader.h"
#include "core/model/plan_summary.h"

#include <QJsonObject>

namespace hetplan {

QJsonObject summaryToJson(const PlanSummary& s);
PlanSummary summaryFromJson(const JsonReader& r);

} // namespace hetplan
