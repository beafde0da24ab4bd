#include "profile.h"

#include "core/base/errors.h"

#include <algorithm>
#include <cmath>
#include <set>

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

std::vector<int> Profile::tensorParallelDegrees(const std::string& deviceType) const
{
    std::set<int> s;
    for (const auto& [k, v] : tables_)
        if (k.deviceType == deviceType)
            s.insert(k.tp);
    return {s.begin(), s.end()};
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
LayerTiming scaled(const LayerTiming& t, double f)
{
    LayerTiming r = t;
    r.forward *= f;
    r.backward *= f;
    // The optimizer step does not depend on the batch.
    if (r.activationBytes >= 0)
        r.activationBytes *= f;
    return r;
}
LayerTiming lerp(const LayerTiming& a, const LayerTiming& b, double w)
{
    LayerTiming r;
    r.forward = a.forward + w * (b.forward - a.forward);
    r.backward = a.backward + w * (b.backward - a.backward);
    r.update = a.update + w * (b.update - a.update);
    r.activationBytes = (a.activationBytes >= 0 && b.activationBytes >= 0)
                            ? a.activationBytes + w * (b.activationBytes - a.activationBytes)
                            : -1;
    return r;
}
} // namespace

std::optional<LayerTiming> Profile::lookup(int layer, const std::string& deviceType, int tp, double mbs) const
{
    auto first = tables_.lower_bound(ProfileKey{deviceType, tp, 0});
    auto last = first;
    while (last != tables_.end() && last->first.deviceType == deviceType && last->first.tp == tp)
        ++last;
    if (first == last || layer < 0 || layer >= int(first->second.size()))
        return std::nullopt;
    // First table whose micro-batch is >= mbs.
    auto hi = first;
    while (hi != last && hi->first.microBatch < mbs)
        ++hi;
    if (hi != last && hi->first.microBatch == mbs)
        return hi->second[layer];
    if (hi == first) // below the smallest measured size: scale down proportionally
        return scaled(first->second[layer], mbs / first->first.microBatch);
    auto lo = std::prev(hi);
    if (hi == last) // above the largest: throughput saturated, time grows linearly
        return scaled(lo->second[layer], mbs / lo->first.microBatch);
    double w = (mbs - lo->first.microBatch) / double(hi->first.microBatch - lo->first.microBatch);
    return lerp(lo->second[layer], hi->second[layer], w);
}

void Profile::merge(const Profile& other)
{
    for (const auto& [k, v] : other.tables_)
        tables_[k] = v;
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
    for (const auto& [k, v] : tables_)
        if (std::find(deviceTypes.begin(), deviceTypes.end(), k.deviceType) != deviceTypes.end())
            p.tables_[k] = v;
    return p;
}

void Profile::validate(const std::string& file) const
{
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
            if (!std::isfinite(l.forward) || l.forward < 0)
                throw InputError(file, lf + ".forward", "must be a finite non-negative time");
            if (!std::isfinite(l.backward) || l.backward < 0)
                throw InputError(file, lf + ".backward", "must be a finite non-negative time");
            if (!std::isfinite(l.update) || l.update < 0)
                throw InputError(file, lf + ".update", "must be a finite non-negative time");
            // -1 is the "not measured" marker; any other negative size is a broken measurement.
            if (!std::isfinite(l.activationBytes) || (l.activationBytes < 0 && l.activationBytes != -1))
                throw InputError(file, lf + ".activation_bytes",
                                 "must be a finite non-negative size (or absent when not measured)");
        }
    }
}

} // namespace hetplan
