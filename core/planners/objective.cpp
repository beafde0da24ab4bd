#include "objective.h"

#include "core/base/numbers.h"
#include "core/model/pricing.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace hetplan {

std::string toString(Objective::Goal g)
{
    switch (g) {
    case Objective::Goal::Time: return "time";
    case Objective::Goal::Cost: return "cost";
    }
    return "time";
}

bool parseObjectiveGoal(const std::string& s, Objective::Goal& out)
{
    if (s == "time")
        out = Objective::Goal::Time;
    else if (s == "cost")
        out = Objective::Goal::Cost;
    else
        return false;
    return true;
}

namespace {
// Four significant digits, but whole numbers from 1000 on: "$0.5/h", "$175.4/h", "30000 tokens/s"; from
// 1e15 on the compact form ("1e+308"), not hundreds of digits.
std::string figure(double v)
{
    if (!(v < 1e15))
        return numberText(v);
    char text[48];
    std::snprintf(text, sizeof text, v >= 1000 ? "%.0f" : "%.4g", v);
    return text;
}

// A cost the constraints and the goal can use: known and finite.
bool priced(const Estimate& e) { return e.cost && costIsFinite(*e.cost); }
std::string money(double v) { return "$" + figure(v) + "/h"; }
std::string rate(double v) { return figure(v) + " tokens/s"; }
} // namespace

std::string describe(const Objective& o)
{
    std::string out = o.goal == Objective::Goal::Time ? "fastest" : "cheapest per token";
    if (o.budgetDollarsPerHour > 0)
        out += " within " + money(o.budgetDollarsPerHour);
    if (o.minTokensPerSecond > 0)
        out += std::string(o.budgetDollarsPerHour > 0 ? " and" : "") + " at " + rate(o.minTokensPerSecond) +
               " or more";
    return out;
}

std::optional<std::string> objectiveMiss(const Objective& o, const Estimate& e)
{
    if (!e.feasible)
        return std::string("does not fit GPU memory");
    if (o.needsPrices() && !priced(e)) {
        std::string types;
        for (const std::string& t : e.unpricedDeviceTypes)
            types += (types.empty() ? "" : ", ") + t;
        if (types.empty() && e.cost)
            return std::string("has no finite cost");
        return "has no price" + (types.empty() ? std::string() : " (no price for " + types + ")");
    }
    // Written so that a NaN misses rather than meets.
    if (o.budgetDollarsPerHour > 0 && !(e.cost->dollarsPerHour <= o.budgetDollarsPerHour * (1 + 1e-9)))
        return "costs " + money(e.cost->dollarsPerHour) + ", over the " + money(o.budgetDollarsPerHour) + " budget";
    if (o.minTokensPerSecond > 0 && !(e.tokensPerSecond >= o.minTokensPerSecond * (1 - 1e-9)))
        return "reaches " + rate(e.tokensPerSecond) + ", under the " + rate(o.minTokensPerSecond) + " floor";
    return std::nullopt;
}

double objectiveShortfall(const Objective& o, const Estimate& e)
{
    const double inf = std::numeric_limits<double>::infinity();
    if (!e.feasible || (o.needsPrices() && !priced(e)))
        return inf;
    double worst = 1;
    if (o.budgetDollarsPerHour > 0)
        worst = std::max(worst, e.cost->dollarsPerHour / o.budgetDollarsPerHour);
    if (o.minTokensPerSecond > 0)
        worst = std::max(worst, e.tokensPerSecond > 0 ? o.minTokensPerSecond / e.tokensPerSecond : inf);
    return worst;
}

double objectiveValue(const Objective& o, const Estimate& e)
{
    if (o.goal == Objective::Goal::Time)
        return e.iterationSeconds > 0 ? e.iterationSeconds : std::numeric_limits<double>::infinity();
    return priced(e) ? e.cost->dollarsPerMillionTokens : std::numeric_limits<double>::infinity();
}

bool betterUnder(const Objective& o, const Estimate& a, const Estimate& b)
{
    const double va = objectiveValue(o, a), vb = objectiveValue(o, b);
    if (va != vb)
        return va < vb;
    return o.goal == Objective::Goal::Cost && a.iterationSeconds < b.iterationSeconds;
}

bool preferredPlan(const Objective& o, const Estimate& a, const Estimate& b)
{
    if (a.feasible != b.feasible)
        return a.feasible;
    const bool aMeets = !objectiveMiss(o, a), bMeets = !objectiveMiss(o, b);
    if (aMeets != bMeets)
        return aMeets;
    return aMeets ? betterUnder(o, a, b) : a.iterationSeconds < b.iterationSeconds;
}

} // namespace hetplan
