#include "core/model/pricing.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

bool costIsFinite(const PlanCost& cost)
{
    return std::isfinite(cost.dollarsPerHour) && std::isfinite(cost.dollarsPerMillionTokens);
}

std::optional<double> gpuHourPrice(const Node& node, const DeviceType* device)
{
    if (node.pricePerGpuHour > 0)
        return node.pricePerGpuHour;
    if (device)
        return device->pricePerGpuHour;
    return std::nullopt;
}

std::optional<PlanCost> costOf(const std::vector<std::optional<double>>& usedGpuPrices, double tokensPerSecond)
{
    if (usedGpuPrices.empty() || !(tokensPerSecond > 0))
        return std::nullopt;
    PlanCost cost;
    for (const std::optional<double>& price : usedGpuPrices) {
        if (!price)
            return std::nullopt;
        cost.dollarsPerHour += *price;
    }
    const double tokensPerHour = tokensPerSecond * 3600.0;
    cost.dollarsPerMillionTokens = cost.dollarsPerHour / tokensPerHour * 1e6;
    // An overflowing sum is no cost: "$inf/h" would meet every cost goal and be written as JSON null.
    if (!costIsFinite(cost))
        return std::nullopt;
    return cost;
}

std::optional<PlanCost> planCost(const Plan& plan, const DeviceLookup& device)
{
    std::vector<std::optional<double>> prices;
    for (int n : plan.cluster.nodesOf(plan.usedGpus())) {
        const Node& node = plan.cluster.nodes[size_t(n)];
        prices.push_back(gpuHourPrice(node, device(node.deviceType)));
    }
    return costOf(prices, plan.estimate.tokensPerSecond);
}

std::vector<std::string> unpricedDeviceTypes(const Plan& plan, const DeviceLookup& device)
{
    std::vector<std::string> types;
    for (int n : plan.cluster.nodesOf(plan.usedGpus())) {
        const Node& node = plan.cluster.nodes[size_t(n)];
        if (!gpuHourPrice(node, device(node.deviceType)))
            types.push_back(node.deviceType);
    }
    std::sort(types.begin(), types.end());
    types.erase(std::unique(types.begin(), types.end()), types.end());
    return types;
}

void priceEstimate(Plan& plan, const DeviceLookup& device)
{
    plan.estimate.cost = planCost(plan, device);
    plan.estimate.unpricedDeviceTypes = unpricedDeviceTypes(plan, device);
}

std::string costUnknownReason(const Estimate& estimate)
{
    if (estimate.cost && costIsFinite(*estimate.cost))
        return {};
    if (estimate.unpricedDeviceTypes.empty())
        return estimate.tokensPerSecond > 0 ? "the cost is not a finite number of dollars"
                                            : "the plan moves no tokens";
    std::string why = "no price for ";
    for (size_t i = 0; i < estimate.unpricedDeviceTypes.size(); ++i)
        why += (i ? ", " : "") + estimate.unpricedDeviceTypes[i];
    return why;
}

} // namespace hetplan
