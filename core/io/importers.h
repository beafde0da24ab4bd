#pragma once
// Profile importers for other tools' measurement formats. Each validates its input and throws
// InputError(file, field, reason) on anything malformed. All produce times in seconds, bytes in bytes.
// The formats live in core/io/formats/, one file each, and register in ImporterRegistry.
#include "core/base/options.h"
#include "core/io/format_registry.h"
#include "core/model/profile.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

// hetplan's own profile JSON (hetplan.profile/1).
Profile importNative(const std::string& path);

// CSV: header `device,tp,micro_batch,layer,forward_ms,backward_ms[,update_ms][,activation_bytes]`
// (time columns may instead be named forward_s/backward_s/update_s); one row per layer.
Profile importCsv(const std::string& path);
std::string exportCsv(const Profile& p);

// Oobleck profile directory: mb{N}.json files (per layer: forward, backward, mem_required) plus
// allreduce_in_node.json / allreduce_across_nodes.json. `deviceType` names the GPU it was measured on.
Profile importOobleck(const std::string& dir, const std::string& deviceType);

// Sailor-style JSON: { "<mbs>": { "<tp>": { "<layer>": [fwd_s, bwd_s, update_s] } } }. update_s is the
// whole model's optimizer step repeated in every layer; it is imported once, spread evenly over the layers.
Profile importSailor(const std::string& path, const std::string& deviceType);

// Metis profiles (SamsungLabs/Metis, USENIX ATC'24): a directory of mbs{B}_tmp{T}.json files (or one such
// file) with per-layer compute time, optimizer time, parameter bytes and per-layer memory.
Profile importMetis(const std::string& path, const std::string& deviceType);

// AMP known_cost .npy (float64, little-endian, C order): per-layer forward seconds at micro-batch 1.
// Backward = backwardFactor × forward (AMP uses 2).
Profile importAmpNpy(const std::string& path, const std::string& deviceType, int tp, double backwardFactor = 2.0);
std::vector<double> readNpyFloat64(const std::string& path);

// AMP's GPT-2 arrays hold 6 + N entries for N transformer blocks: embedding, a no-op, N blocks, two
// no-ops, the output embedding, a no-op (N = 24 gives AMP's 30 entries). hetplan's GPT-2 models have
// N + 2 layers (embedding, blocks, head), so this folds each no-op's time into its neighbouring real
// layer (entry 1 into the embedding; the three after the blocks into the head), which keeps the total
// time. Throws InputError("", "shape", ...) if there are fewer than 7 entries.
std::vector<double> compactAmpGpt2(const std::vector<double>& entries);
// importAmpNpy with the GPT-2 compaction above applied when `compactGpt2` is set.
Profile importAmpNpy(const std::string& path, const std::string& deviceType, int tp, double backwardFactor,
                     bool compactGpt2);

// Everything a caller (the CLI's `import`, the GUI) can tell the importers beyond the format and path.
struct ImportOptions {
    std::string deviceType; // GPU type for formats that do not name it (oobleck, sailor, amp-npy)
    int tp = 1;             // tensor-parallel degree for formats that do not name it (amp-npy)
    std::string model;      // if non-empty, stored as Profile::model
    // The format's own options (ImportFormat::options) by key, as text; importProfile() resolves them
    // (defaults filled in, values checked) before the format reads them.
    std::map<std::string, std::string> params;
    // What the measurements ran at, recorded in the profile (Profile::sequenceLength / precision) when
    // given. None of the supported foreign formats states them, so no importer guesses; a profile without
    // them is used with a warning (core/cost/costmodel.h).
    int sequenceLength = 0;
    std::optional<Precision> precision;
};

// What a format needs beyond its path, so callers ask for exactly that (the CLI's checks, the dialog's fields).
struct ImportNeeds {
    bool directory = false; // the input is a directory, not a file
    bool device = false;    // the data does not name its GPU: ImportOptions::deviceType is required
    bool tp = false;        // the data does not name its tensor-parallel degree: ImportOptions::tp applies
};

struct ImportFormat : FileFormat {
    // Gets `options` with params resolved against `this->options`.
    std::function<Profile(const std::string& path, const ImportOptions& options)> read = {};
    ImportNeeds needs = {};
    // Whether `path` looks like this format by its own signature (a magic number, a schema tag, a header, a
    // directory's file names), reading at most its first few kilobytes (Tiled's supportsFile). Never throws.
    std::function<bool(const std::string& path)> supports = {};
    // The values only this format takes from the user, declared as planners declare theirs: the CLI makes
    // an `import --<key>` option of each (underscores as dashes), the import dialog an editor.
    std::vector<OptionDecl> options = {};
    // Values of `options` to propose for an input at `path` meant for a model of `family` (empty when
    // unknown), e.g. amp-npy folds AMP's GPT-2 entries for a GPT-2; the import dialog starts from them.
    std::function<std::map<std::string, std::string>(const std::string& path, const std::string& family)> suggest =
        {};
};

class ImporterRegistry : public FormatRegistry<ImportFormat> {
public:
    static ImporterRegistry& instance(); // with the built-in formats registered (formats/builtin.cpp)
};

// The registered formats whose `supports` recognises `path`, in registration order (empty: none).
std::vector<std::string> formatsSupporting(const std::string& path);
// The one format that recognises `path`; none, or more than one, is InputError("--format", "format", ...)
// asking for --format and naming the candidates.
std::string detectFormat(const std::string& path);

// Reads `path` with the registered format named `format` (an unknown name is InputError "--format"). A
// param the format does not declare, or a bad value, is InputError("params", key, reason).
Profile importProfile(const std::string& format, const std::string& path, const ImportOptions& options);

// The same with only a device type and tensor-parallel degree for formats that do not name them.
Profile importProfile(const std::string& format, const std::string& path, const std::string& deviceType, int tp);

} // namespace hetplan
