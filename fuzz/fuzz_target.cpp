// One libFuzzer target (HETPLAN_FUZZ=ON): HETPLAN_FUZZ_TARGET names the entry in fuzz_entries.h.
#include "fuzz_entries.h"

#include <QtGlobal>
#include <cstdio>
#include <cstdlib>

namespace {
// Readers log nothing on the happy path; Qt's own warnings about odd files would flood libFuzzer's output.
void quietQtMessages(QtMsgType, const QMessageLogContext&, const QString&) {}
} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    qInstallMessageHandler(quietQtMessages);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const hetplan::fuzz::Target* target = hetplan::fuzz::findTarget(HETPLAN_FUZZ_TARGET);
    if (!target) {
        std::fprintf(stderr, "no fuzz entry named %s\n", HETPLAN_FUZZ_TARGET);
        std::abort();
    }
    target->run(data, size);
    return 0;
}
