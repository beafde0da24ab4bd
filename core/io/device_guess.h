#pragma once
// Which catalog GPU a profile was measured on, guessed from where it lies and what it says, so the import
// dialog can fill in "Measured on" (the user can still change it). Profiles are often kept in folders
// named after the GPU (".../A100-80/profile.json", "runs/v100_16gb/times.npy").
#include "core/model/device.h"

#include <string>

namespace hetplan {

// The catalog name of the GPU `path` names, "" if none:
// 1. path components from the file up to the root, each compared with every device's name and aliases,
//    case-insensitively, as the whole component or a part of it bounded by non-alphanumerics
//    ("profile_A100-80GB.csv"); the longest spelling wins ("A100-80GB-PCIe" over "A100-80GB");
// 2. then, for a file, its first 64 KiB: a JSON field "device", "device_type", "gpu" or "gpu_type", or a
//    CSV "device" column's first value.
std::string guessDeviceType(const std::string& path, const DeviceCatalog& catalog = DeviceCatalog::builtin());

// The device a piece of text names by the rule of step 1 ("" if none).
std::string deviceNamedIn(const std::string& text, const DeviceCatalog& catalog = DeviceCatalog::builtin());

} // namespace hetplan
