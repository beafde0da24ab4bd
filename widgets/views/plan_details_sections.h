#pragma once
// The builders of the known planner sections for the "Plan details" view (internal to it). Each reads the
// keys it knows and leaves the rest to an "Other values" tree.
#include "plan_details_layout.h"

#include <QJsonObject>

namespace hetplan::details {

DetailsSection dittoSection(const QJsonObject& object);   // plan_details_sections.cpp
DetailsSection oobleckSection(const QJsonObject& object); // plan_details_sections.cpp
DetailsSection hethubSection(const QJsonObject& object);  // plan_details_hethub.cpp
// HAP's search and per-class ratios; segment names come from the plan's SPMD part (plan_details_spmd.cpp).
DetailsSection hapSection(const QJsonObject& object, const Plan& plan);
DetailsSection spmdSection(const Plan& plan); // plan_details_spmd.cpp

} // namespace hetplan::details
