// `profile`: the analytic per-layer times of a model on device types, as hetplan's profile JSON. The
// calibration script (tools/calibrate/) drives it, so the times it checks are the C++ model's own.
#include "cli.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"
#include "core/base/quote.h"
#include "core/base/units.h"
#include "core/cost/analytic.h"
#include "core/io/examples.h"
#include "core/io/json_io.h"
#include "core/model/catalog_json.h"
#include "core/model/device.h"

#include <ostream>
#include <sstream>

namespace hetplan::cli {

namespace {

void addProfileOptions(CommandLine& cl)
{
    cl.addOption("model", "FILE|example:NAME", "The model: a model JSON file or a bundled example.");
    cl.addOption("device", "TYPE", "A device type (repeatable; see: hetplan-cli list devices).");
    cl.addOption("devices", "FILE",
                 "A device catalog JSON (hetplan.devices/1) whose entries replace or extend the "
                 "built-in ones of the same name.");
    cl.addOption("tp", "LIST", "Tensor-parallel degrees, comma-separated.", "1");
    cl.addOption("mbs", "LIST", "Micro-batch sizes, comma-separated.", "1");
    cl.addOption("seq", "N", "Sequence length (examples only; default: the model's).");
    cl.addOption("precision", "P", "fp16, bf16 or fp32.", "fp16");
    cl.addFlag("no-tf32", "fp32: matrix products on the CUDA cores (TF32 off, plain PyTorch's default).");
    cl.addOption("tp-bandwidth", "LIST",
                 "Bandwidth of the tp all-reduces (e.g. 50GB/s), one for all --tp "
                 "values or one per value; 'default' or absent: the device's intra-node "
                 "link.");
    cl.addOption("out", "FILE", "Write the profile JSON (hetplan.profile/1) here.");
}

std::vector<int> positiveList(const CommandLine& cl, const std::string& name)
{
    std::vector<int> out;
    std::stringstream ss(cl.get(name));
    for (std::string item; std::getline(ss, item, ',');) {
        const std::optional<long long> v = wholeNumber(item);
        if (!v || *v < 1 || *v > kMaxBatch)
            throw InputError("--" + name, "argument",
                             "expected positive integers separated by commas, got '" + cl.get(name) + "'");
        out.push_back(int(*v));
    }
    if (out.empty())
        throw InputError("--" + name, "argument", "expected at least one value");
    return out;
}

// The built-in catalog with --devices' entries added over it.
DeviceCatalog catalogFromArgs(const CommandLine& cl)
{
    DeviceCatalog catalog = DeviceCatalog::builtin();
    if (cl.has("devices")) {
        const DeviceCatalog extra = catalogFromJson(readJsonFile(cl.get("devices")), cl.get("devices"));
        for (const DeviceType& d : extra.all())
            catalog.add(d);
    }
    return catalog;
}

std::vector<DeviceType> devicesFromArgs(const CommandLine& cl)
{
    const DeviceCatalog catalog = catalogFromArgs(cl);
    std::vector<DeviceType> devices;
    for (const std::string& name : cl.all("device")) {
        const DeviceType* d = catalog.find(name);
        if (!d)
            throw InputError("--device", "device",
                             "unknown device type '" + name + "' (see: hetplan-cli list devices)");
        devices.push_back(*d);
    }
    if (devices.empty())
        throw InputError("--device", "argument", "required (at least one device type)");
    return devices;
}

// --tp-bandwidth: nothing, one value for every tp, or one per --tp value; "default" (0) = the device's link.
std::vector<double> tpBandwidths(const CommandLine& cl, size_t count)
{
    std::vector<double> out;
    if (!cl.has("tp-bandwidth"))
        return std::vector<double>(count, 0.0);
    std::stringstream ss(cl.get("tp-bandwidth"));
    for (std::string item; std::getline(ss, item, ',');) {
        if (item == "default") {
            out.push_back(0);
            continue;
        }
        const double bw = parseQuantity(item, Dimension::Bandwidth, "--tp-bandwidth", "argument");
        if (!(bw > 0))
            throw InputError("--tp-bandwidth", "argument", "must be positive");
        out.push_back(bw);
    }
    if (out.size() == 1)
        out.assign(count, out[0]);
    if (out.size() != count)
        throw InputError("--tp-bandwidth", "argument", "expected one value or one per --tp value");
    return out;
}

Job jobFromArgs(const CommandLine& cl, const ModelSpec& model)
{
    Job job;
    if (!parsePrecision(cl.get("precision"), job.precision))
        throw InputError("--precision", "argument", "expected fp16, bf16 or fp32, got '" + cl.get("precision") + "'");
    if (model.arch.sequence > 0)
        job.sequenceLength = model.arch.sequence;
    job.tf32 = !cl.flag("no-tf32");
    return job;
}

// The most layer times one profile holds: its JSON stays well under what the readers accept (256 MiB).
constexpr double kMaxProfileLayerTimes = 1e6;

// Refuses, before anything is computed, a profile too large to write and read back.
void checkProfileSize(size_t devices, size_t tps, size_t mbs, int layers)
{
    const double tables = double(devices) * double(tps) * double(mbs), times = tables * layers;
    if (times <= kMaxProfileLayerTimes)
        return;
    std::ostringstream why;
    why << messageNumber(tables) << " tables (device types x --tp x --mbs values) x " << layers << " layers = "
        << messageNumber(times) << " layer times, more than the " << kMaxProfileLayerTimes
        << " one profile holds: give fewer --tp or --mbs values (planners need only the degrees and micro-batch "
           "sizes they will try)";
    throw InputError("--mbs", "argument", why.str());
}

} // namespace

int cmdProfile(const std::vector<std::string>& argv, std::ostream& out, std::ostream&)
{
    CommandLine cl = commandLine("profile");
    addProfileOptions(cl);
    if (!cl.parse(argv, out))
        return Ok;
    int seq = 0;
    if (cl.has("seq") && (seq = cl.integer("seq")) < 1)
        throw InputError("--seq", "sequence_length", "must be at least 1");
    const ModelSpec model = loadModel(cl.get("model"), seq);
    const std::vector<DeviceType> devices = devicesFromArgs(cl);
    const std::vector<int> tps = positiveList(cl, "tp"), mbs = positiveList(cl, "mbs");
    const Job job = jobFromArgs(cl, model);
    const std::vector<double> bandwidths = tpBandwidths(cl, tps.size());
    const std::string outPath = cl.get("out");
    checkProfileSize(devices.size(), tps.size(), mbs.size(), model.layerCount());
    Profile p;
    for (size_t i = 0; i < tps.size(); ++i) {
        AnalyticContext ctx;
        ctx.tpBandwidth = bandwidths[i];
        p.merge(generateAnalyticProfile(model, devices, {tps[i]}, mbs, job, ctx));
    }
    p.model = model.name;
    p.source = "analytic";
    writeJsonFile(outPath, toJson(p));
    out << "analytic profile of " << escapeControls(model.name) << " (" << model.layerCount() << " layers, "
        << toString(job.precision) << "): " << p.tables().size() << " table(s) -> " << outPath << "\n";
    return Ok;
}

} // namespace hetplan::cli
