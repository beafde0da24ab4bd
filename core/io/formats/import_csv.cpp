// CSV profiles: one row per (device, tp, micro-batch, layer). Columns are found by name, so their order
// is free; times are either all in milliseconds (*_ms) or all in seconds (*_s). Blank lines and lines
// starting with '#' are skipped. Export writes seconds with the shortest exact decimal form so a
// write → read round trip returns the same numbers bit for bit.
#include "core/io/importers.h"

#include "core/base/errors.h"
#include "core/base/numbers.h"
#include "core/base/physical_ranges.h"
#include "core/io/formats/import_util.h"
#include "core/model/device.h"

#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <sstream>

namespace hetplan {

using namespace importutil;

namespace {

enum Column { Device, Tp, MicroBatch, Layer, Forward, Backward, Update, Activation, ColumnCount };

std::string lineField(int line, const std::string& column) { return "line " + std::to_string(line) + ": " + column; }

// Splits one CSV record. Fields may be double-quoted ("" inside quotes is a literal quote).
std::vector<std::string> splitRecord(std::string_view line, const std::string& file, int lineNo)
{
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false, wasQuoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < line.size() && line[i + 1] == '"') {
                    cur += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                cur += c;
            }
        } else if (c == '"' && trim(cur).empty() && !wasQuoted) {
            cur.clear();
            quoted = wasQuoted = true;
        } else if (c == ',') {
            fields.emplace_back(wasQuoted ? cur : std::string(trim(cur)));
            cur.clear();
            wasQuoted = false;
        } else if (wasQuoted) {
            if (c != ' ' && c != '\t')
                throw InputError(file, "line " + std::to_string(lineNo), "text after a closing quote");
        } else {
            cur += c;
        }
    }
    if (quoted)
        throw InputError(file, "line " + std::to_string(lineNo), "unterminated quote");
    fields.emplace_back(wasQuoted ? cur : std::string(trim(cur)));
    return fields;
}

std::string quoteIfNeeded(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos && trim(s) == s)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

struct Header {
    std::array<int, ColumnCount> index; // position of each column in a record, -1 if absent
    std::array<std::string, ColumnCount> name;
    bool msUnits = false; // times in milliseconds (else seconds)
    size_t count = 0;
};

Header parseHeader(const std::vector<std::string>& cols, const std::string& file, int lineNo)
{
    Header h;
    h.index.fill(-1);
    h.count = cols.size();
    std::optional<std::string> unit; // "ms" or "s"
    for (size_t i = 0; i < cols.size(); ++i) {
        std::string c;
        for (char ch : cols[i])
            c += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        int col = -1;
        std::string u;
        if (c == "device")
            col = Device;
        else if (c == "tp")
            col = Tp;
        else if (c == "micro_batch")
            col = MicroBatch;
        else if (c == "layer")
            col = Layer;
        else if (c == "activation_bytes")
            col = Activation;
        else {
            for (const auto& [base, id] :
                 {std::pair<std::string, int>{"forward", Forward}, {"backward", Backward}, {"update", Update}}) {
                if (c == base + "_ms") {
                    col = id;
                    u = "ms";
                } else if (c == base + "_s") {
                    col = id;
                    u = "s";
                }
            }
        }
        const std::string where = "line " + std::to_string(lineNo) + ": header";
        if (col < 0)
            throw InputError(file, where,
                             "unknown column '" + cols[i] +
                                 "' (expected device,tp,micro_batch,layer,forward_ms,backward_ms"
                                 "[,update_ms][,activation_bytes], or *_s time columns)");
        if (h.index[col] >= 0)
            throw InputError(file, where, "column '" + cols[i] + "' appears twice");
        if (!u.empty()) {
            if (unit && *unit != u)
                throw InputError(file, where, "time columns mix units (*_ms and *_s); use one unit per file");
            unit = u;
        }
        h.index[col] = static_cast<int>(i);
        h.name[col] = c;
    }
    const char* required[] = {"device", "tp", "micro_batch", "layer", "forward_ms", "backward_ms"};
    for (int col : {Device, Tp, MicroBatch, Layer, Forward, Backward}) {
        if (h.index[col] < 0)
            throw InputError(file, "line " + std::to_string(lineNo) + ": header",
                             std::string("missing column '") + required[col] + "' (or its *_s form)");
    }
    h.msUnits = *unit == "ms";
    return h;
}

struct Row {
    LayerTiming timing;
    int line = 0;
};

// Per table, the rows by layer number.
using Groups = std::map<ProfileKey, std::map<int, Row>>;

// Calls `record(lineNo, fields)` for each line that is neither blank nor a '#' comment.
template <typename Record>
void forEachRecord(const std::string& text, const std::string& file, Record record)
{
    int lineNo = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string::npos)
            nl = text.size();
        const std::string_view line = trim(std::string_view(text).substr(pos, nl - pos));
        pos = nl + 1;
        ++lineNo;
        if (!line.empty() && line.front() != '#')
            record(lineNo, splitRecord(line, file, lineNo));
    }
}

// One data record read against the header; every failure names the line and the column.
class RecordReader {
public:
    RecordReader(const Header& h, const std::vector<std::string>& fields, const std::string& file, int line)
        : h_(h), fields_(fields), file_(file), line_(line)
    {
        if (fields.size() != h.count)
            throw InputError(file, "line " + std::to_string(line),
                             "expected " + std::to_string(h.count) + " fields, found " + std::to_string(fields.size()));
    }

    int line() const { return line_; }
    [[noreturn]] void fail(const std::string& column, const std::string& reason) const
    {
        throw InputError(file_, lineField(line_, column), reason);
    }

    // device, tp and micro_batch.
    ProfileKey key() const
    {
        ProfileKey key;
        if (cell(Device).empty())
            fail("device", "empty device name");
        // Rows for a device the catalog does not know would never be looked up: refuse them.
        const DeviceType* device = DeviceCatalog::builtin().find(cell(Device));
        if (!device)
            fail("device", "unknown device type '" + cell(Device) + "' (see hetplan-cli list devices)");
        key.deviceType = device->name;
        key.tp = integer(Tp, 1);
        key.microBatch = integer(MicroBatch, 1);
        return key;
    }

    int layer() const { return integer(Layer, 0); }

    // The layer's times in seconds and its activation bytes.
    Row row() const
    {
        // Milliseconds are converted by division: x / 1000 is the correctly rounded quotient, while
        // x * 1e-3 is not always.
        auto seconds = [&](double v) { return h_.msUnits ? v / 1000.0 : v; };
        Row row;
        row.line = line_;
        row.timing.forward = bounded(Forward, seconds(*number(Forward, false)), ranges::kLayerTime);
        row.timing.backward = bounded(Backward, seconds(*number(Backward, false)), ranges::kLayerTime);
        if (auto u = number(Update, true))
            row.timing.update = bounded(Update, seconds(*u), ranges::kLayerTime);
        if (auto a = number(Activation, true))
            row.timing.activationBytes = bounded(Activation, *a, ranges::kLayerBytes);
        return row;
    }

private:
    const std::string& cell(int col) const { return fields_[static_cast<size_t>(h_.index[col])]; }

    int integer(int col, long long min) const
    {
        long long v = 0;
        if (!parseInt(cell(col), v))
            fail(h_.name[col], "not a whole number: '" + cell(col) + "'");
        if (v < min || v > 1'000'000'000)
            fail(h_.name[col], "must be " + std::string(min > 0 ? "positive" : "non-negative"));
        return static_cast<int>(v);
    }

    // The value in SI units, refused with the line and column when outside its physical range.
    double bounded(int col, double v, const PhysicalRange& range) const
    {
        if (const std::string why = rangeProblem(range, v); !why.empty())
            fail(h_.name[col], why);
        return v;
    }

    // Empty optional cells (and absent optional columns) mean "not measured".
    std::optional<double> number(int col, bool optional) const
    {
        if (h_.index[col] < 0 || (optional && cell(col).empty()))
            return std::nullopt;
        const std::optional<double> parsed = decimalNumber(cell(col));
        if (!parsed)
            fail(h_.name[col], decimalProblem(cell(col)));
        const double v = *parsed;
        if (v < 0)
            fail(h_.name[col], "negative value " + cell(col));
        return v;
    }

    const Header& h_;
    const std::vector<std::string>& fields_;
    const std::string& file_;
    int line_;
};

std::string tableName(const ProfileKey& key)
{
    return "device " + key.deviceType + ", tp " + std::to_string(key.tp) + ", micro_batch " +
           std::to_string(key.microBatch);
}

void addRecord(Groups& groups, const RecordReader& record)
{
    const ProfileKey key = record.key();
    const int layer = record.layer();
    const Row row = record.row();
    const auto [it, inserted] = groups[key].emplace(layer, row);
    if (!inserted)
        record.fail("layer", "duplicate row for " + tableName(key) + ", layer " + std::to_string(layer) +
                                 " (first on line " + std::to_string(it->second.line) + ")");
}

// One table per group; its layers must be numbered 0..N-1 without gaps.
Profile assembleProfile(const Groups& groups, const std::string& file)
{
    Profile p;
    p.source = "csv";
    for (const auto& [key, rows] : groups) {
        std::vector<LayerTiming> layers;
        int expected = 0;
        for (const auto& [layer, row] : rows) {
            if (layer != expected)
                throw InputError(file, lineField(row.line, "layer"),
                                 "layer " + std::to_string(expected) + " is missing for " + tableName(key) +
                                     " (layers must be numbered 0..N-1)");
            layers.push_back(row.timing);
            ++expected;
        }
        p.set(key, std::move(layers));
    }
    p.validate(file);
    return p;
}

} // namespace

Profile importCsv(const std::string& path)
{
    std::string text = readBytes(path);
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) // spreadsheets like to add a UTF-8 BOM
        text.erase(0, 3);

    std::optional<Header> header;
    Groups groups;
    forEachRecord(text, path, [&](int lineNo, const std::vector<std::string>& fields) {
        if (!header)
            header = parseHeader(fields, path, lineNo);
        else
            addRecord(groups, RecordReader(*header, fields, path, lineNo));
    });
    if (!header)
        throw InputError(path, "header", "empty file: expected a header line");
    if (groups.empty())
        throw InputError(path, "rows", "no data rows after the header");
    return assembleProfile(groups, path);
}

std::string exportCsv(const Profile& p)
{
    bool anyActivation = false;
    for (const auto& [key, layers] : p.tables())
        for (const auto& l : layers)
            anyActivation = anyActivation || l.activationBytes >= 0;

    std::ostringstream out;
    out << "device,tp,micro_batch,layer,forward_s,backward_s,update_s";
    if (anyActivation)
        out << ",activation_bytes";
    out << '\n';
    for (const auto& [key, layers] : p.tables()) {
        for (size_t i = 0; i < layers.size(); ++i) {
            const LayerTiming& l = layers[i];
            out << quoteIfNeeded(key.deviceType) << ',' << key.tp << ',' << key.microBatch << ',' << i << ','
                << numberText(l.forward) << ',' << numberText(l.backward) << ',' << numberText(l.update);
            if (anyActivation) {
                out << ',';
                if (l.activationBytes >= 0)
                    out << numberText(l.activationBytes);
            }
            out << '\n';
        }
    }
    return out.str();
}

void registerCsvImporter(ImporterRegistry& registry)
{
    registry.add(
        {{"csv", "CSV: device,tp,micro_batch,layer,forward_ms,backward_ms (one row per layer)", "*.csv", ".csv"},
         [](const std::string& path, const ImportOptions&) { return importCsv(path); },
         {},
         [](const std::string& path) {
             // The header: the first line that is neither blank nor a # comment names the key columns.
             std::istringstream in(importutil::readHead(path));
             for (std::string line; std::getline(in, line);) {
                 const std::string_view t = importutil::trim(line);
                 if (t.empty() || t.front() == '#')
                     continue;
                 return t.find("device") != std::string_view::npos && t.find("micro_batch") != std::string_view::npos &&
                        t.find(',') != std::string_view::npos;
             }
             return false;
         }});
}

} // namespace hetplan
