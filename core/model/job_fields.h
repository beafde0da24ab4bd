#pragma once
// The job's fields, declared once: the job JSON reader and writer, Job::validate, the CLI's job flags, the
// Job panel and the error labels are all built from this table.
#include "core/base/fields.h"
#include "job.h"

namespace hetplan {

// In the order the Job panel shows them. Not in it: legacyOptimizerBytesPerParam, which only the reader sets
// (from the older optimizer_bytes_per_param) and no writer writes.
const std::vector<FieldSpec<Job>>& jobFields();

// The older key the job reader still accepts for optimizer_state_bytes_per_param.
inline constexpr const char* kLegacyOptimizerKey = "optimizer_bytes_per_param";

} // namespace hetplan
