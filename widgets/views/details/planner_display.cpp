#include "planner_display.h"

#include <set>
#include <stdexcept>

namespace hetplan {

namespace {
const std::vector<PlannerDisplay>& displays()
{
    static const std::vector<PlannerDisplay> all = [] {
        std::vector<PlannerDisplay> v = {
            details::dittoDisplay(),  details::oobleckDisplay(), details::hethubDisplay(),
            details::hapDisplay(),    details::poplarDisplay(),  details::metisDisplay(),
            details::selectionDisplay(), details::megatronSpaceDisplay(),
        };
        std::set<std::string> seen;
        for (const PlannerDisplay& d : v)
            if (!seen.insert(d.section).second)
                throw std::logic_error("two displays for the plan section " + d.section);
        return v;
    }();
    return all;
}
} // namespace

const PlannerDisplay* plannerDisplay(const std::string& section)
{
    for (const PlannerDisplay& d : displays())
        if (d.section == section)
            return &d;
    return nullptr;
}

std::vector<std::string> plannerDisplaySections()
{
    std::vector<std::string> out;
    for (const PlannerDisplay& d : displays())
        out.push_back(d.section);
    return out;
}

} // namespace hetplan
