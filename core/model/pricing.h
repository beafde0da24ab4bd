#pragma once
// What a plan costs: each used GPU's price per hour (the node's override, else the device catalog's
// on-demand list price) summed, and divided by the plan's throughput for dollars per million tokens.
#include "core/model/plan.h"

#include <functional>
#include <optional>
#include <vector>

namespace hetplan {

// The price of one GPU-hour on `node` in US dollars: the node's price_per_gpu_hour when set, else the
// device's catalog price; empty when neither is known (or `device` is null).
std::optional<double> gpuHourPrice(const Node& node, const DeviceType* device);

// The cost of running GPUs with these prices (one entry per used GPU) at `tokensPerSecond`. Empty when any
// price is unknown (a partial sum would understate the cost) or when no tokens flow (no finite $/token).
std::optional<PlanCost> costOf(const std::vector<std::optional<double>>& usedGpuPrices, double tokensPerSecond);

// costOf for the GPUs `plan` uses at its estimate's tokens per second; `device` resolves a node's type.
using DeviceLookup = std::function<const DeviceType*(const std::string& type)>;
std::optional<PlanCost> planCost(const Plan& plan, const DeviceLookup& device);

} // namespace hetplan
