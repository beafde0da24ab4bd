#pragma once
// A blocking parallel loop on std::threads. The engine uses it instead of QtConcurrent because
// ThreadSanitizer sees std::thread's start and join; Debian's Qt is not instrumented, so TSan cannot see
// QThreadPool's hand-offs and reports races that aren't there (make check-sanitize).
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace hetplan {

// Calls body(i) once for every i in [0, count), on up to `threads` threads (the caller's included; 0 = one
// per hardware thread), and returns when all calls have. The first exception a call throws is rethrown
// here after every thread has finished; the remaining indices are skipped.
template <class Body>
void parallelFor(int count, Body&& body, unsigned threads = 0)
{
    if (count <= 0)
        return;
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    threads = std::min<unsigned>(threads, unsigned(count));
    std::atomic<int> next{0};
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto work = [&] {
        for (int i = next++; i < count; i = next++) {
            try {
                body(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(failureMutex);
                if (!failure)
                    failure = std::current_exception();
                next = count; // skip what is left
            }
        }
    };
    std::vector<std::thread> helpers;
    helpers.reserve(threads - 1);
    for (unsigned t = 1; t < threads; ++t)
        helpers.emplace_back(work);
    work();
    for (std::thread& h : helpers)
        h.join();
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace hetplan
