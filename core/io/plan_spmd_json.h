#pragma once
// The SPMD section of plan JSON (a HAP-style program: instructions, sharding ratios per segment, whole-unit
// dimensions), written and read for plan_json.cpp. Internal to core/io.
#include "core/base/json_reader.h"
#include "core/model/plan.h"

#include <QJsonObject>

namespace hetplan {

QJsonObject spmdToJson(const SpmdPlan& sp);
// Validates as it reads: every failure is InputError(file, "spmd.<field>", reason).
SpmdPlan spmdFromJson(const JsonReader& s);

} // namespace hetplan
