#include "profile.h"

#include "core/base/errors.h"
#include "core/base/physical_ranges.h"

#include <algorithm>
#include <cmath>

namespace hetplan {

void Profile::set(const ProfileKey& key, std::vector<LayerTiming> layers) { tables_[key] = std::move(layers); }

const std::vector<LayerTiming>* Profile::table(const ProfileKey& key) const
{
    auto it = tables_.find(key);
    return it == tables_.end() ? nullptr : &it->second;
}

bool Profile::has(const std::string& deviceType, int tp) const
{
    auto it = tables_.lower_bound(ProfileKey{deviceType, tp, 0});
    return it != tables_.end() && it->first.deviceType == deviceType && it->first.tp == tp;
}

std::vector<std::string> Profile::deviceTypes() const
{
    std::vector<std::string> out;
    for (const auto& [k, v] : tables_)
        if (out.empty() || out.back() != k.deviceType)
            out.push_back(k.deviceType);
    return out;
}

std::vector<int> Profile::microBatches(const std::string& deviceType, int tp) const
{
    std::vector<int> out;
    for (auto it = tables_.lower_bound(ProfileKey{deviceType, tp, 0});
         it != tables_.end() && it->first.deviceType == deviceType && it->first.tp == tp; ++it)
        out.push_back(it->first.microBatch);
    return out;
}

int Profile::layerCount() const { return tables_.empty() ? 0 : int(tables_.begin()->second.size()); }

namespace {

// Per-sample time held flat: the total scales with the batch. The optimizer step does not depend on it.
LayerTiming scaled(const LayerTiming& t, double f)
{
    LayerTiming r = t;
    r.forward *= f;
    r.backward *= f;
    if (r.activationBytes >= 0)
        r.activationBytes *= f;
    if (r.tpAllReduceBytes >= 0)
        r.tpAllReduceBytes *= f;
    r.peakBytes = -1; // holds parameters too: not proportional to the batch
    return r;
}

// Fritsch-Butland slopes of a monotone piecewise cubic through (x, y): 0 at a local extremum, a weighted
// harmonic mean of the neighbouring secants elsewhere, the end secant at both ends.
std::vector<double> monotoneSlopes(const std::vector<double>& x, const std::vector<double>& y)
{
    const size_t n = x.size();
    std::vector<double> h(n - 1), d(n - 1), m(n);
    for (size_t k = 0; k + 1 < n; ++k) {
        h[k] = x[k + 1] - x[k];
        d[k] = (y[k + 1] - y[k]) / h[k];
    }
    m[0] = d[0];
    m[n - 1] = d[n - 2];
    for (size_t k = 1; k + 1 < n; ++k) {
        if (d[k - 1] * d[k] <= 0) {
            m[k] = 0;
            continue;
        }
        const double w1 = 2 * h[k] + h[k - 1], w2 = h[k] + 2 * h[k - 1];
        m[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k]);
    }
    return m;
}

// The monotone cubic through (x, y) evaluated at q, x[0] <= q <= x.back().
double monotoneCubic(const std::vector<double>& x, const std::vector<double>& y, double q)
{
    const std::vector<double> m = monotoneSlopes(x, y);
    size_t k = 0;
    while (k + 2 < x.size() && q > x[k + 1])
        ++k;
    const double h = x[k + 1] - x[k], t = (q - x[k]) / h;
    const double h00 = (1 + 2 * t) * (1 - t) * (1 - t), h10 = t * (1 - t) * (1 - t);
    const double h01 = t * t * (3 - 2 * t), h11 = t * t * (t - 1);
    return h00 * y[k] + h10 * h * m[k] + h01 * y[k + 1] + h11 * h * m[k + 1];
}

// Interpolates one layer between measured micro-batch sizes xs (ascending, >= 2 of them) at mbs.
LayerTiming interpolate(const std::vector<double>& xs, const std::vector<const LayerTiming*>& ts, double mbs)
{
    std::vector<double> fwd, bwd;
    for (size_t i = 0; i < xs.size(); ++i) {
        fwd.push_back(ts[i]->forward / xs[i]);
        bwd.push_back(ts[i]->backward / xs[i]);
    }
    size_t hi = 1;
    while (xs[hi] < mbs)
        ++hi;
    const LayerTiming& a = *ts[hi - 1];
    const LayerTiming& b = *ts[hi];
    const double w = (mbs - xs[hi - 1]) / (xs[hi] - xs[hi - 1]);
    LayerTiming r;
    r.forward = mbs * monotoneCubic(xs, fwd, mbs);
    r.backward = mbs * monotoneCubic(xs, bwd, mbs);
    r.update = a.update + w * (b.update - a.update);
    r.activationBytes = (a.activationBytes >= 0 && b.activationBytes >= 0)
                            ? a.activationBytes + w * (b.activationBytes - a.activationBytes)
                            : -1;
    return r;
}

} // namespace

std::optional<LayerTiming> Profile::lookup(int layer, const std::string& deviceType, int tp, double mbs) const
{
    std::vector<double> xs;
    std::vector<const LayerTiming*> ts;
    for (auto it = tables_.lower_bound(ProfileKey{deviceType, tp, 0});
         it != tables_.end() && it->first.deviceType == deviceType && it->first.tp == tp; ++it) {
        if (layer < 0 || layer >= int(it->second.size()))
            return std::nullopt;
        xs.push_back(it->first.microBatch);
        ts.push_back(&it->second[layer]);
    }
    if (xs.empty())
        return std::nullopt;
    for (size_t i = 0; i < xs.size(); ++i)
        if (xs[i] == mbs)
            return *ts[i];
    if (mbs < xs.front()) // no data below the smallest size: per-sample time flat
        return scaled(*ts.front(), mbs / xs.front());
    if (mbs > xs.back()) // throughput saturated: per-sample time flat
        return scaled(*ts.back(), mbs / xs.back());
    return interpolate(xs, ts, mbs);
}

void Profile::merge(const Profile& other)
{
    if (sequenceLength > 0 && other.sequenceLength > 0 && sequenceLength != other.sequenceLength)
        throw InputError("profile", "sequence_length",
                         "cannot merge profiles measured at sequence lengths " + std::to_string(sequenceLength) +
                             " and " + std::to_string(other.sequenceLength));
    if (precision && other.precision && *precision != *other.precision)
        throw InputError("profile", "precision",
                         "cannot merge profiles measured in " + toString(*precision) + " and " +
                             toString(*other.precision));
    if (sequenceLength == 0)
        sequenceLength = other.sequenceLength;
    if (!precision)
        precision = other.precision;
    for (const auto& [k, v] : other.tables_)
        tables_[k] = v;
    for (const auto& [device, m] : other.measuredOn)
        measuredOn[device] = m;
    if (model.empty())
        model = other.model;
    if (source.empty())
        source = other.source;
}

Profile Profile::restrictedTo(const std::vector<std::string>& deviceTypes) const
{
    Profile p;
    p.model = model;
    p.source = source;
    p.sequenceLength = sequenceLength;
    p.precision = precision;
    for (const auto& [k, v] : tables_)
        if (std::find(deviceTypes.begin(), deviceTypes.end(), k.deviceType) != deviceTypes.end())
            p.tables_[k] = v;
    for (const auto& [device, m] : measuredOn)
        if (std::find(deviceTypes.begin(), deviceTypes.end(), device) != deviceTypes.end())
            p.measuredOn[device] = m;
    return p;
}

void Profile::validate(const std::string& file) const
{
    if (sequenceLength < 0 || sequenceLength > kMaxBatch)
        throw InputError(file, "sequence_length", "must be between 1 and " + std::to_string(kMaxBatch));
    int n = -1;
    int t = 0;
    for (const auto& [k, v] : tables_) {
        const std::string f = "tables[" + std::to_string(t++) + "]";
        if (k.deviceType.empty())
            throw InputError(file, f + ".device", "must not be empty");
        if (k.tp < 1)
            throw InputError(file, f + ".tp", "must be at least 1");
        if (k.microBatch < 1)
            throw InputError(file, f + ".micro_batch", "must be at least 1");
        if (v.empty())
            throw InputError(file, f + ".layers", "must not be empty");
        if (n >= 0 && int(v.size()) != n)
            throw InputError(file, f + ".layers",
                             "has " + std::to_string(v.size()) + " layers, other tables have " + std::to_string(n));
        n = int(v.size());
        for (size_t i = 0; i < v.size(); ++i) {
            const LayerTiming& l = v[i];
            const std::string lf = f + ".layers[" + std::to_string(i) + "]";
            // Measured values within their physical ranges; -1 is the "not measured" marker for sizes.
            for (const auto& [value, name] : {std::pair{l.forward, ".forward"}, std::pair{l.backward, ".backward"},
                                              std::pair{l.update, ".update"}})
                checkRange(ranges::kLayerTime, value, file, lf + name);
            for (const auto& [value, name] : {std::pair{l.activationBytes, ".activation_bytes"},
                                              std::pair{l.peakBytes, ".peak_bytes"},
                                              std::pair{l.tpAllReduceBytes, ".tp_allreduce_bytes"}})
                if (value != -1)
                    checkRange(ranges::kLayerBytes, value, file, lf + name);
        }
        // A table that says every layer takes no time is not a measurement: it would make that device
        // infinitely fast and every plan put all the work on it.
        const bool allZero = std::all_of(v.begin(), v.end(), [](const LayerTiming& l) {
            return l.forward == 0 && l.backward == 0 && l.update == 0;
        });
        if (allZero)
            throw InputError(file, f + ".layers",
                             "every time is zero (" + k.deviceType + ", tp " + std::to_string(k.tp) +
                                 ", micro-batch " + std::to_string(k.microBatch) + "): not a measurement");
    }
    for (const auto& [device, m] : measuredOn)
        for (const auto& [tp, mbs] : m.maxMicroBatch)
            if (tp < 1 || mbs < 1)
                throw InputError(file, "measured_on." + device + ".max_micro_batch",
                                 "tp and micro_batch must be at least 1");
}

} // namespace hetplan
