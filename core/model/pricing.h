#pragma once
// What a plan costs: each used GPU's price per hour (the node's override, else the device catalog's
// on-demand list price) summed, and divided by the plan's throughput for dollars per million tokens.
#include "core/model/plan.h"

#include <functional>
#include <optional>
#include <vector>

namespace hetplan {

// Both figures finite: a cost that is not is unknown, never "$inf/h".
bool costIsFinite(const PlanCost& cost);

// The price of one GPU-hour on `node` in US dollars: the node's price_per_gpu_hour when set, else the
// device's catalog price; empty when neither is known (or `device` is null).
std::optional<double> gpuHourPrice(const Node& node, const DeviceType* device);

// The cost of running GPUs with these prices (one entry per used GPU) at `tokensPerSecond`. Empty when any
// price is unknown (a partial sum would understate the cost), when no tokens flow (no finite $/token) or
// when a figure is not finite.
std::optional<PlanCost> costOf(const std::vector<std::optional<double>>& usedGpuPrices, double tokensPerSecond);

// costOf for the GPUs `plan` uses at its estimate's tokens per second; `device` resolves a node's type.
using DeviceLookup = std::function<const DeviceType*(const std::string& type)>;
std::optional<PlanCost> planCost(const Plan& plan, const DeviceLookup& device);

// The device types among the GPUs `plan` uses that have neither a node price nor a catalog price.
std::vector<std::string> unpricedDeviceTypes(const Plan& plan, const DeviceLookup& device);

// Fills plan.estimate.cost and plan.estimate.unpricedDeviceTypes (after the estimate's tokens per second).
void priceEstimate(Plan& plan, const DeviceLookup& device);

// Why a plan has no cost, in words ("no price for T4, K80", "the plan moves no tokens", "the cost is not a
// finite number of dollars"); empty when it has one.
std::string costUnknownReason(const Estimate& estimate);

} // namespace hetplan
