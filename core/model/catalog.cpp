// The device catalog: lookup rules, its JSON form and the built-in catalog compiled into the library
// from resources/devices.json (Qt resource ":/devices.json").
#include "core/base/qstrings.h"
#include "core/model/catalog_json.h"

#include "core/base/json_reader.h"

#include "core/base/errors.h"
#include "core/base/physical_ranges.h"
#include "core/model/device.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>

namespace hetplan {

namespace {

std::string lower(const std::string& s)
{
    std::string r = s;
    std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return r;
}

// Lower case with separators dropped, so "RTX 3090", "rtx_3090" and "RTX-3090" compare equal.
std::string squashed(const std::string& s)
{
    std::string r;
    for (unsigned char c : s)
        if (std::isalnum(c))
            r += char(std::tolower(c));
    return r;
}

// The unique device one of whose keys (name or alias), after `norm`, equals norm(query); nullptr when
// none or more than one device matches (an ambiguous short name must not silently pick one).
template <class Norm>
const DeviceType* uniqueMatch(const std::vector<DeviceType>& devices, const std::string& query, Norm norm)
{
    const std::string q = norm(query);
    if (q.empty())
        return nullptr;
    const DeviceType* found = nullptr;
    for (const DeviceType& d : devices) {
        bool hit = norm(d.name) == q;
        for (const std::string& a : d.aliases)
            hit = hit || norm(a) == q;
        if (!hit)
            continue;
        if (found)
            return nullptr;
        found = &d;
    }
    return found;
}

// The analytic device model's fields; all optional. Without peak_flops_fp32 fp32 runs at a quarter of the
// 16-bit rate (between plain fp32 and TF32 on recent parts).
void readAnalyticFields(const JsonReader& r, DeviceType& d)
{
    d.peakFlopsFp32 = r.has("peak_flops_fp32") ? r.quantity("peak_flops_fp32", Dimension::FlopRate) : d.peakFlops / 4;
    checkRange(ranges::kFlopRate, d.peakFlopsFp32, r.file(), r.field("peak_flops_fp32"));
    d.peakFlopsFp32CudaCores = r.has("peak_flops_fp32_cuda_cores")
                                   ? r.quantity("peak_flops_fp32_cuda_cores", Dimension::FlopRate)
                                   : d.peakFlopsFp32;
    checkRange(ranges::kFlopRate, d.peakFlopsFp32CudaCores, r.file(), r.field("peak_flops_fp32_cuda_cores"));
    if (!(d.peakFlopsFp32CudaCores <= d.peakFlopsFp32))
        r.fail("peak_flops_fp32_cuda_cores", "must be at most peak_flops_fp32 (the TF32 rate)");
    d.gemmHalfDim = r.number("gemm_half_dim", d.gemmHalfDim);
    if (!(d.gemmHalfDim >= 0 && d.gemmHalfDim < 1e6))
        r.fail("gemm_half_dim", "must be between 0 and 1e6 (matrix rows/columns)");
    d.memoryEfficiency = r.number("memory_efficiency", d.memoryEfficiency);
    checkRange(ranges::kEfficiency, d.memoryEfficiency, r.file(), r.field("memory_efficiency"));
    d.launchOverhead = r.has("launch_overhead") ? r.quantity("launch_overhead", Dimension::Seconds) : 0;
    if (!(d.launchOverhead >= 0 && d.launchOverhead < 1))
        r.fail("launch_overhead", "must be between 0 and 1 s");
    d.calibration = r.string("calibration", "");
    d.pcieP2p = r.boolean("pcie_p2p", true);
}

// The on-demand price (all optional): a price must be a positive, finite number of dollars and come with
// its source and date, since a bare figure cannot be checked or aged.
void readPrice(const JsonReader& r, DeviceType& d)
{
    d.priceSource = r.string("price_source", "");
    d.priceDate = r.string("price_date", "");
    if (!r.has("price_per_gpu_hour"))
        return;
    const double price = r.number("price_per_gpu_hour");
    checkRange(ranges::kPricePerGpuHour, price, r.file(), r.field("price_per_gpu_hour"));
    if (d.priceSource.empty() || d.priceDate.empty())
        r.fail("price_per_gpu_hour", "needs price_source and price_date (where and when the price was read)");
    d.pricePerGpuHour = price;
}

} // namespace

// ---------------------------------------------------------------- DeviceCatalog

DeviceCatalog::DeviceCatalog(std::vector<DeviceType> devices) : devices_(std::move(devices)) {}

const DeviceType* DeviceCatalog::find(const std::string& name) const
{
    for (const DeviceType& d : devices_)
        if (d.name == name)
            return &d;
    if (const DeviceType* d = uniqueMatch(devices_, name, lower))
        return d;
    return uniqueMatch(devices_, name, squashed);
}

void DeviceCatalog::add(DeviceType d)
{
    // A device with the same name replaces the old entry (a user catalog overriding a built-in row).
    for (DeviceType& old : devices_)
        if (old.name == d.name) {
            old = std::move(d);
            return;
        }
    devices_.push_back(std::move(d));
}

const DeviceCatalog& DeviceCatalog::builtin()
{
    // Function-local static: initialised once, thread-safe since C++11.
    static const DeviceCatalog catalog = [] {
        const std::string path = ":/devices.json";
        QFile f(toQString(path));
        if (!f.open(QIODevice::ReadOnly))
            throw std::runtime_error("built-in device catalog " + path + " is missing from the binary");
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject())
            throw InputError(path, "", "not a JSON object: " + err.errorString().toStdString());
        return catalogFromJson(doc.object(), path);
    }();
    return catalog;
}

// ---------------------------------------------------------------- JSON

QJsonObject toJson(const DeviceType& d)
{
    // Quantities as bare numbers in SI base units so that reading back is exact.
    QJsonObject o;
    o["name"] = toQString(d.name);
    if (!d.aliases.empty()) {
        QJsonArray a;
        for (const std::string& s : d.aliases)
            a.append(toQString(s));
        o["aliases"] = a;
    }
    o["vendor"] = toQString(d.vendor);
    o["peak_flops"] = d.peakFlops;
    o["memory"] = d.memoryBytes;
    o["memory_bandwidth"] = d.memoryBandwidth;
    if (!d.intraNodeLink.empty())
        o["intra_node_link"] = toQString(d.intraNodeLink);
    o["intra_node_bandwidth"] = d.intraNodeBandwidth;
    o["efficiency_max"] = d.effMax;
    o["efficiency_half_batch"] = d.effHalfBatch;
    if (!d.source.empty())
        o["source"] = toQString(d.source);
    if (d.peakFlopsFp32 > 0)
        o["peak_flops_fp32"] = d.peakFlopsFp32;
    if (d.peakFlopsFp32CudaCores > 0 && d.peakFlopsFp32CudaCores != d.peakFlopsFp32)
        o["peak_flops_fp32_cuda_cores"] = d.peakFlopsFp32CudaCores;
    o["gemm_half_dim"] = d.gemmHalfDim;
    o["memory_efficiency"] = d.memoryEfficiency;
    o["launch_overhead"] = d.launchOverhead;
    if (!d.calibration.empty())
        o["calibration"] = toQString(d.calibration);
    if (!d.pcieP2p)
        o["pcie_p2p"] = false;
    o["runtime_overhead"] = d.runtimeOverheadBytes;
    if (!d.runtimeOverheadSource.empty())
        o["runtime_overhead_source"] = toQString(d.runtimeOverheadSource);
    if (d.pricePerGpuHour)
        o["price_per_gpu_hour"] = *d.pricePerGpuHour;
    if (!d.priceSource.empty())
        o["price_source"] = toQString(d.priceSource);
    if (!d.priceDate.empty())
        o["price_date"] = toQString(d.priceDate);
    return o;
}

DeviceType deviceFromJson(const QJsonObject& o, const std::string& file, const std::string& path)
{
    JsonReader r(o, file, path);
    r.allowOnly({"name", "aliases", "vendor", "peak_flops", "memory", "memory_bandwidth", "intra_node_link",
                 "intra_node_bandwidth", "efficiency_max", "efficiency_half_batch", "source", "runtime_overhead",
                 "runtime_overhead_source", "peak_flops_fp32", "peak_flops_fp32_cuda_cores", "gemm_half_dim", "memory_efficiency", "launch_overhead",
                 "calibration", "pcie_p2p", "price_per_gpu_hour", "price_source", "price_date"});
    DeviceType d;
    d.name = r.string("name");
    if (d.name.empty() || squashed(d.name).empty())
        r.fail("name", "must contain a letter or digit");
    if (r.has("aliases")) {
        const QJsonArray a = r.array("aliases");
        for (int i = 0; i < a.size(); ++i) {
            const std::string f = "aliases[" + std::to_string(i) + "]";
            if (!a.at(i).isString())
                r.fail(f, "expected a string");
            const std::string s = a.at(i).toString().toStdString();
            if (squashed(s).empty())
                r.fail(f, "must contain a letter or digit");
            d.aliases.push_back(s);
        }
    }
    d.vendor = r.string("vendor");
    if (d.vendor.empty())
        r.fail("vendor", "must not be empty");

    auto bounded = [&](const char* key, Dimension dim, const PhysicalRange& range) {
        const double v = r.quantity(key, dim);
        checkRange(range, v, r.file(), r.field(key));
        return v;
    };
    d.peakFlops = bounded("peak_flops", Dimension::FlopRate, ranges::kFlopRate);
    d.memoryBytes = bounded("memory", Dimension::Bytes, ranges::kDeviceMemory);
    d.memoryBandwidth = bounded("memory_bandwidth", Dimension::Bandwidth, ranges::kBandwidth);
    d.intraNodeLink = r.string("intra_node_link", "");
    d.intraNodeBandwidth = bounded("intra_node_bandwidth", Dimension::Bandwidth, ranges::kBandwidth);

    d.effMax = r.number("efficiency_max", d.effMax);
    checkRange(ranges::kEfficiency, d.effMax, r.file(), r.field("efficiency_max"));
    d.effHalfBatch = r.number("efficiency_half_batch", d.effHalfBatch);
    checkRange(ranges::kHalfBatch, d.effHalfBatch, r.file(), r.field("efficiency_half_batch"));
    d.source = r.string("source", "");
    readAnalyticFields(r, d);
    d.runtimeOverheadBytes = r.quantity("runtime_overhead", Dimension::Bytes, d.runtimeOverheadBytes);
    if (!(d.runtimeOverheadBytes >= 0) || !(d.runtimeOverheadBytes < d.memoryBytes))
        r.fail("runtime_overhead", "must be at least 0 and less than the device memory");
    d.runtimeOverheadSource = r.string("runtime_overhead_source", "");
    readPrice(r, d);
    return d;
}

namespace {

// The catalog's "runtime_overheads" groups: [{ "devices": [names], "runtime_overhead": size, "source": text }].
// One figure per GPU family keeps the catalog readable; a device may appear in one group at most, and not
// in a group when its own entry already states runtime_overhead.
void applyRuntimeOverheads(const JsonReader& r, std::vector<DeviceType>& devices)
{
    if (!r.has("runtime_overheads"))
        return;
    std::map<std::string, int> seen;
    for (size_t i = 0; i < devices.size(); ++i) {
        const QJsonObject e = r.array("devices").at(int(i)).toObject();
        if (e.contains("runtime_overhead"))
            seen[devices[i].name] = -1;
    }
    const QJsonArray groups = r.array("runtime_overheads");
    for (int g = 0; g < groups.size(); ++g) {
        const JsonReader e = r.element(groups, "runtime_overheads", g);
        e.allowOnly({"devices", "runtime_overhead", "source"});
        const double bytes = e.quantity("runtime_overhead", Dimension::Bytes);
        const std::string source = e.string("source");
        const QJsonArray names = e.array("devices");
        for (int k = 0; k < names.size(); ++k) {
            const std::string field = "devices[" + std::to_string(k) + "]";
            if (!names.at(k).isString())
                e.fail(field, "expected a device name");
            const std::string name = names.at(k).toString().toStdString();
            auto it = std::find_if(devices.begin(), devices.end(), [&](const DeviceType& d) { return d.name == name; });
            if (it == devices.end())
                e.fail(field, "'" + name + "' is not a device of this catalog");
            if (!seen.emplace(name, g).second)
                e.fail(field, "'" + name + "' already has a runtime overhead");
            if (!(bytes >= 0) || !(bytes < it->memoryBytes))
                e.fail("runtime_overhead", "must be at least 0 and less than the memory of '" + name + "'");
            it->runtimeOverheadBytes = bytes;
            it->runtimeOverheadSource = source;
        }
    }
}

} // namespace

QJsonObject toJson(const DeviceCatalog& c)
{
    QJsonArray devices;
    for (const DeviceType& d : c.all())
        devices.append(toJson(d));
    return QJsonObject{{"schema", "hetplan.devices/1"}, {"devices", devices}};
}

DeviceCatalog catalogFromJson(const QJsonObject& o, const std::string& file)
{
    JsonReader r(o, file);
    r.allowOnly({"schema", "notes", "devices", "runtime_overheads"});
    if (r.has("schema") && r.string("schema") != "hetplan.devices/1")
        r.fail("schema", "expected \"hetplan.devices/1\", got \"" + r.string("schema") + "\"");
    const QJsonArray arr = r.array("devices");
    if (arr.isEmpty())
        r.fail("devices", "the catalog lists no devices");
    std::vector<DeviceType> devices;
    std::map<std::string, std::string> owner; // squashed key → device name, to reject ambiguous keys
    for (int i = 0; i < arr.size(); ++i) {
        const JsonReader e = r.element(arr, "devices", i);
        DeviceType d = deviceFromJson(e.object(), file, "devices[" + std::to_string(i) + "]");
        std::vector<std::string> keys{d.name};
        keys.insert(keys.end(), d.aliases.begin(), d.aliases.end());
        for (size_t k = 0; k < keys.size(); ++k) {
            auto [it, fresh] = owner.emplace(squashed(keys[k]), d.name);
            if (!fresh && it->second != d.name)
                e.fail(k == 0 ? "name" : "aliases[" + std::to_string(k - 1) + "]",
                       "'" + keys[k] + "' is already a name or alias of '" + it->second + "'");
        }
        devices.push_back(std::move(d));
    }
    applyRuntimeOverheads(r, devices);
    return DeviceCatalog(std::move(devices));
}

} // namespace hetplan
