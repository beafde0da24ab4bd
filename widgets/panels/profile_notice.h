#pragma once
// What a model's measured profile means for a job, in words for the Model tab's table and the Run tab: the
// engine's own rule (profileWarnings in core/cost/costmodel.h: another sequence length is rescaled, another
// precision is refused), not a second one.
#include "core/model/job.h"
#include "core/model/profile.h"

#include <QString>

namespace hetplan {

struct ProfileNotice {
    QString text;         // empty when the profile matches the job (or there is no profile)
    bool refused = false; // the planners will refuse this profile for this job (another precision)
};

ProfileNotice profileNotice(const Job& job, const Profile& profile);

} // namespace hetplan
