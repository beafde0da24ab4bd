#include "physical_ranges.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"

#include <cstdio>

namespace hetplan {

namespace {
// A bound as people write it (%g): "1e+09", "1000", "0.0001".
std::string bound(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}
} // namespace

std::string rangeProblem(const PhysicalRange& r, double v)
{
    if ((v >= r.min && v <= r.max) || (r.zeroAllowed && v == 0)) // NaN fails both
        return {};
    const std::string unit = *r.unit ? std::string(" ") + r.unit : std::string();
    return std::string("must be ") + (r.zeroAllowed && r.min > 0 ? "0 or " : "") + "between " + bound(r.min) + " and " +
           bound(r.max) + unit + " (" + r.why + "), got " + messageNumber(v);
}

void checkRange(const PhysicalRange& r, double v, const std::string& file, const std::string& field)
{
    if (std::string why = rangeProblem(r, v); !why.empty())
        throw InputError(file, field, std::move(why));
}

} // namespace hetplan
