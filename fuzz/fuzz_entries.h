#pragma once
// The entry functions of the fuzz targets, one per reader. Both builds use them: the clang
// build (HETPLAN_FUZZ=ON) wraps each in a libFuzzer target, the normal build replays every file under
// fuzz/corpus/ and fuzz/regressions/ through them as ctest tests (fuzz_replay.cpp).
//
// An entry writes the bytes where the reader expects a file (the readers take paths, and the file layer
// is part of what is tested), reads it, and for input that is accepted checks that what was read
// round-trips: written back to JSON and read again it gives the same JSON. Rejection must be an
// InputError; any other exception escapes (libFuzzer reports it as a crash, the replay test fails).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hetplan::fuzz {

using Entry = std::function<void(const std::uint8_t* data, std::size_t size)>;

struct Target {
    std::string name; // also the fuzz executable's suffix (fuzz_<name>) and the corpus folder's name
    Entry run;
};

// Every target: cluster, model, job, plan, project, and profile-<format> for each registered importer.
const std::vector<Target>& targets();
const Target* findTarget(const std::string& name);

// Directory formats (oobleck, metis) take one input holding several files: a line "=== NAME" starts the
// file NAME; bytes before the first such line go to `firstName` (no such file if there are none). Names
// keep [A-Za-z0-9._-] only, at most 100 of them ("unnamed" if nothing is left); at most 32 files, later
// "===" lines are content.
struct InputFile {
    std::string name;
    std::string bytes;
};
std::vector<InputFile> splitFiles(const std::string& input, const std::string& firstName);

} // namespace hetplan::fuzz
