// NumPy .npy reader for AMP's known_cost arrays, and the AMP importer.
// .npy layout: magic "\x93NUMPY", major and minor version bytes, header length (uint16 LE for 1.0,
// uint32 LE for 2.0 and 3.0), then a Python dict literal such as
//   {'descr': '<f8', 'fortran_order': False, 'shape': (30,), }
// padded with spaces and a newline, then the raw array data. We accept little-endian float64 1-D arrays
// only and check that the data length matches the shape exactly.
#include "core/io/importers.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"
#include "core/io/formats/import_util.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <map>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

namespace hetplan {

using namespace importutil;

namespace {

struct NpyHeader {
    std::optional<std::string> descr;
    std::optional<bool> fortranOrder;
    std::optional<std::vector<long long>> shape;
};

// Parser for the small subset of Python literals that .npy headers use: a dict of string keys whose
// values are strings, True/False or tuples of non-negative integers.
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& file) : s_(text), file_(file) {}

    NpyHeader parse()
    {
        NpyHeader h;
        expect('{');
        for (;;) {
            skipSpace();
            if (peek() == '}') {
                ++i_;
                break;
            }
            const std::string key = string();
            expect(':');
            skipSpace();
            if (key == "descr") {
                set(h.descr, string(), key);
            } else if (key == "fortran_order") {
                set(h.fortranOrder, boolean(), key);
            } else if (key == "shape") {
                set(h.shape, tuple(), key);
            } else {
                fail("unexpected key '" + key + "' (expected descr, fortran_order, shape)");
            }
            skipSpace();
            if (peek() == ',') {
                ++i_;
            } else if (peek() != '}') {
                fail("expected ',' or '}'");
            }
        }
        skipSpace();
        if (i_ != s_.size())
            fail("unexpected text after the dictionary");
        if (!h.descr || !h.fortranOrder || !h.shape)
            fail("the dictionary must have the keys descr, fortran_order and shape");
        return h;
    }

private:
    [[noreturn]] void fail(const std::string& why) const
    {
        throw InputError(file_, "header", why + " (at character " + std::to_string(i_) + ")");
    }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void skipSpace()
    {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
            ++i_;
    }
    void expect(char c)
    {
        skipSpace();
        if (peek() != c)
            fail(std::string("expected '") + c + "'");
        ++i_;
    }
    template <typename T>
    void set(std::optional<T>& slot, T value, const std::string& key)
    {
        if (slot)
            fail("key '" + key + "' appears twice");
        slot = std::move(value);
    }
    std::string string()
    {
        skipSpace();
        const char q = peek();
        if (q != '\'' && q != '"')
            fail("expected a quoted string");
        const size_t end = s_.find(q, i_ + 1);
        if (end == std::string_view::npos)
            fail("unterminated string");
        std::string out(s_.substr(i_ + 1, end - i_ - 1));
        i_ = end + 1;
        return out;
    }
    bool boolean()
    {
        if (s_.substr(i_, 4) == "True") {
            i_ += 4;
            return true;
        }
        if (s_.substr(i_, 5) == "False") {
            i_ += 5;
            return false;
        }
        fail("expected True or False");
    }
    std::vector<long long> tuple()
    {
        if (peek() != '(')
            fail("expected a tuple such as (30,)");
        ++i_;
        std::vector<long long> dims;
        for (;;) {
            skipSpace();
            if (peek() == ')') {
                ++i_;
                return dims;
            }
            const size_t start = i_;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9')
                ++i_;
            long long v = 0;
            if (!parseInt(s_.substr(start, i_ - start), v))
                fail("expected a non-negative whole number in the shape");
            if (peek() == 'L') // written by Python 2
                ++i_;
            dims.push_back(v);
            skipSpace();
            if (peek() == ',')
                ++i_;
            else if (peek() != ')')
                fail("expected ',' or ')' in the shape");
        }
    }

    std::string_view s_;
    const std::string& file_;
    size_t i_ = 0;
};

uint64_t littleEndian(const unsigned char* p, int bytes)
{
    uint64_t v = 0;
    for (int b = bytes - 1; b >= 0; --b)
        v = (v << 8) | p[b];
    return v;
}

std::string shapeText(const std::vector<long long>& dims)
{
    std::string t = "(";
    for (size_t i = 0; i < dims.size(); ++i)
        t += (i ? ", " : "") + std::to_string(dims[i]);
    return t + (dims.size() == 1 ? ",)" : ")");
}

} // namespace

std::vector<double> readNpyFloat64(const std::string& path)
{
    const std::string bytes = readBytes(path);
    const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
    static const char magic[] = "\x93NUMPY";
    if (bytes.size() < 6 || std::memcmp(bytes.data(), magic, 6) != 0)
        throw InputError(path, "magic", "not a NumPy .npy file (it must start with \\x93NUMPY)");
    if (bytes.size() < 10)
        throw InputError(path, "header", "file truncated inside the header");
    const int major = u[6], minor = u[7];
    if ((major < 1 || major > 3) || minor != 0)
        throw InputError(path, "version",
                         "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor) +
                             " (1.0, 2.0 and 3.0 are known)");
    const size_t lenBytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + lenBytes)
        throw InputError(path, "header", "file truncated inside the header");
    const uint64_t headerLen = littleEndian(u + 8, static_cast<int>(lenBytes));
    const size_t headerStart = 8 + lenBytes;
    if (headerLen > bytes.size() - headerStart)
        throw InputError(path, "header",
                         "file truncated: the header says it is " + std::to_string(headerLen) + " bytes but only " +
                             std::to_string(bytes.size() - headerStart) + " follow");

    const NpyHeader h = HeaderParser(std::string_view(bytes).substr(headerStart, headerLen), path).parse();
    if (*h.descr != "<f8") {
        const std::string why =
            (*h.descr == ">f8") ? "big-endian float64 is not supported" : "expected little-endian float64 ('<f8')";
        throw InputError(path, "descr", "dtype '" + *h.descr + "': " + why);
    }
    const std::vector<long long>& dims = *h.shape;
    // For a 1-D array C and Fortran order are the same bytes; for more dimensions we would need to know.
    if (*h.fortranOrder && dims.size() > 1)
        throw InputError(path, "fortran_order", "Fortran-ordered arrays are not supported");
    if (dims.size() != 1)
        throw InputError(path, "shape", "expected a 1-D array (one value per layer), got shape " + shapeText(dims));

    const size_t dataStart = headerStart + headerLen;
    const size_t available = bytes.size() - dataStart;
    const unsigned long long n = static_cast<unsigned long long>(dims[0]);
    const std::string need = "shape " + shapeText(dims) + " needs " + std::to_string(n) + " × 8 bytes of data";
    if (n > available / 8)
        throw InputError(path, "data", "file truncated: " + need + ", found " + std::to_string(available));
    if (available != n * 8)
        throw InputError(path, "data",
                         need + " but the file has " + std::to_string(available) + " (extra bytes after the array)");

    std::vector<double> values(static_cast<size_t>(n));
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = std::bit_cast<double>(littleEndian(u + dataStart + 8 * i, 8));
    return values;
}

std::vector<double> compactAmpGpt2(const std::vector<double>& e)
{
    if (e.size() < 7)
        throw InputError("", "shape",
                         "AMP's GPT-2 layout needs at least 7 entries (embedding, no-op, blocks, "
                         "3 no-ops around the output embedding), got " +
                             std::to_string(e.size()));
    const size_t blocks = e.size() - 6;
    std::vector<double> out;
    out.reserve(blocks + 2);
    out.push_back(e[0] + e[1]); // embedding + the no-op after it
    for (size_t b = 0; b < blocks; ++b)
        out.push_back(e[2 + b]);    // transformer blocks
    const size_t tail = 2 + blocks; // two no-ops, output embedding, no-op
    out.push_back(e[tail] + e[tail + 1] + e[tail + 2] + e[tail + 3]);
    return out;
}

Profile importAmpNpy(const std::string& path, const std::string& deviceType, int tp, double backwardFactor,
                     bool compactGpt2)
{
    requireDeviceType(deviceType, path, "amp-npy");
    if (tp < 1)
        throw InputError(path, "tp", "tensor-parallel degree must be at least 1");
    if (!std::isfinite(backwardFactor) || backwardFactor < 0)
        throw InputError(path, "backward_factor", "must be a finite number >= 0");

    std::vector<double> forward = readNpyFloat64(path);
    if (forward.empty())
        throw InputError(path, "shape", "the array is empty");
    for (size_t i = 0; i < forward.size(); ++i) {
        if (!std::isfinite(forward[i]))
            throw InputError(path, "[" + std::to_string(i) + "]", "not a finite time");
        if (forward[i] < 0)
            throw InputError(path, "[" + std::to_string(i) + "]", "negative time " + messageNumber(forward[i]));
    }
    if (compactGpt2) {
        try {
            forward = compactAmpGpt2(forward);
        } catch (const InputError& e) {
            throw e.inFile(path);
        }
    }

    std::vector<LayerTiming> layers;
    for (double f : forward) {
        LayerTiming t;
        t.forward = f;
        t.backward = backwardFactor * f;
        layers.push_back(t);
    }
    Profile p;
    p.source = "amp-npy";
    p.set(ProfileKey{canonicalDevice(deviceType), tp, 1}, std::move(layers)); // AMP measured micro-batch 1
    p.validate(path);
    return p;
}

Profile importAmpNpy(const std::string& path, const std::string& deviceType, int tp, double backwardFactor)
{
    return importAmpNpy(path, deviceType, tp, backwardFactor, false);
}

void registerAmpNpyImporter(ImporterRegistry& registry)
{
    registry.add({{"amp-npy", "AMP known_cost .npy (forward seconds per layer at micro-batch 1)", "*.npy", ".npy"},
                  [](const std::string& path, const ImportOptions& o) {
                      return importAmpNpy(path, o.deviceType, o.tp, doubleOption(o.params, "backward_factor"),
                                          boolOption(o.params, "compact_gpt2"));
                  },
                  {.device = true, .tp = true},
                  [](const std::string& path) { return importutil::readHead(path, 6) == "\x93NUMPY"; },
                  {OptionDecl::real("backward_factor", "Backward factor", 2.0, 0.1, 10,
                                    "backward time = this × forward time (AMP uses 2)"),
                   OptionDecl::boolean("compact_gpt2", "Fold AMP's GPT-2 no-op entries", false,
                                       "fold AMP's GPT-2 no-op entries into their neighbours (30 entries -> 26 "
                                       "layers)")},
                  [](const std::string& path, const std::string& family) {
                      // AMP's GPT-2 arrays carry no-op entries a GPT-2 model does not have.
                      std::string p = path;
                      std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
                      const bool gpt2 = family == "gpt2" || p.find("gpt2") != std::string::npos ||
                                        p.find("gpt-2") != std::string::npos;
                      return gpt2 ? std::map<std::string, std::string>{{"compact_gpt2", "true"}}
                                  : std::map<std::string, std::string>{};
                  }});
}

} // namespace hetplan
