#pragma once
// The SPMD program section of the "Plan details" view (internal to it; plan_details_spmd.cpp). The
// planners' own sections are built by their displays in details/.
#include "plan_details_layout.h"

namespace hetplan::details {

DetailsSection spmdSection(const Plan& plan);

} // namespace hetplan::details
