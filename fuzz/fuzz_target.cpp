// The libFuzzer main of every fuzz_<target> executable (HETPLAN_FUZZ=ON): compiled once and linked into
// each, it picks its entry in fuzz_entries.h from its own file name, fuzz_<target>.
#include "fuzz_entries.h"

#include <QtGlobal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
const hetplan::fuzz::Target* fuzzTarget = nullptr;

// Readers log nothing on the happy path; Qt's own warnings about odd files would flood libFuzzer's output.
void quietQtMessages(QtMsgType, const QMessageLogContext&, const QString&) {}
} // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    qInstallMessageHandler(quietQtMessages);
    const std::string self = *argc > 0 ? (*argv)[0] : "";
    const std::size_t at = self.rfind("fuzz_");
    fuzzTarget = at == std::string::npos ? nullptr : hetplan::fuzz::findTarget(self.substr(at + 5));
    if (!fuzzTarget) {
        std::fprintf(stderr, "%s: the executable's name must be fuzz_<target> of fuzz_entries.cpp\n", self.c_str());
        std::exit(2);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzzTarget->run(data, size);
    return 0;
}
