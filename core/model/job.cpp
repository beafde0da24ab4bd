#include "job.h"

#include "core/base/errors.h"
#include "framework_options.h"
#include "job_fields.h"

namespace hetplan {

std::string toString(Precision p)
{
    switch (p) {
    case Precision::FP16: return "fp16";
    case Precision::BF16: return "bf16";
    case Precision::FP32: return "fp32";
    }
    return "fp16";
}

std::string toString(Schedule s) { return s == Schedule::GPipe ? "gpipe" : "1f1b"; }

bool parsePrecision(const std::string& s, Precision& out)
{
    if (s == "fp16")
        out = Precision::FP16;
    else if (s == "bf16")
        out = Precision::BF16;
    else if (s == "fp32")
        out = Precision::FP32;
    else
        return false;
    return true;
}

bool parseSchedule(const std::string& s, Schedule& out)
{
    if (s == "1f1b")
        out = Schedule::OneFOneB;
    else if (s == "gpipe")
        out = Schedule::GPipe;
    else
        return false;
    return true;
}

std::string toString(Framework f)
{
    switch (f) {
    case Framework::MegatronCore: return "megatron-core";
    case Framework::MegatronLegacy: return "megatron-legacy";
    case Framework::DeepSpeedPipe: return "deepspeed-pipe";
    }
    return "megatron-core";
}

bool parseFramework(const std::string& s, Framework& out)
{
    if (s == "megatron-core")
        out = Framework::MegatronCore;
    else if (s == "megatron-legacy")
        out = Framework::MegatronLegacy;
    else if (s == "deepspeed-pipe")
        out = Framework::DeepSpeedPipe;
    else
        return false;
    return true;
}

void Job::validate(const std::string& file) const
{
    // The ranges (jobFields) keep every derived count (micro-batches, samples, events) far from overflow.
    checkFields(*this, jobFields(), file);
    if (recompute && selectiveRecompute)
        throw InputError(file, "selective_recompute",
                         "full and selective recomputation exclude each other (Megatron's --recompute-granularity "
                         "takes one): set recompute or selective_recompute, not both");
    if (const std::string why = unsupportedReason(framework, FrameworkOption::SequenceParallel);
        sequenceParallel && !why.empty())
        throw InputError(file, "sequence_parallel",
                         why + "; use framework megatron-core or megatron-legacy, or set sequence_parallel to false");
}

} // namespace hetplan
