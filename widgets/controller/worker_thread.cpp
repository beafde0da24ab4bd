#include "worker_thread.h"

namespace hetplan {

WorkerThread::WorkerThread(QObject* parent) : QObject(parent)
{
    poll_.setInterval(kPollMs);
    connect(&poll_, &QTimer::timeout, this, &WorkerThread::drain);
}

WorkerThread::~WorkerThread()
{
    poll_.stop();
    wait();
}

bool WorkerThread::start(std::function<void(const Post& post)> job)
{
    if (running_)
        return false;
    wait(); // the thread of the job before has posted its last message; reap it
    {
        std::lock_guard lock(mutex_);
        inbox_.clear();
        done_ = false;
    }
    running_ = true;
    // The worker only ever touches the mailbox; `this` outlives it (the destructor joins).
    thread_ = std::thread([this, job = std::move(job)] {
        const Post post = [this](std::function<void()> f) {
            std::lock_guard lock(mutex_);
            inbox_.push_back(std::move(f));
        };
        job(post);
        std::lock_guard lock(mutex_);
        done_ = true;
    });
    poll_.start();
    return true;
}

void WorkerThread::wait()
{
    if (thread_.joinable())
        thread_.join();
}

void WorkerThread::drain()
{
    if (draining_)
        return; // re-entered from a closure's nested event loop: the outer drain goes on once it returns
    draining_ = true;
    std::vector<std::function<void()>> batch;
    {
        std::lock_guard lock(mutex_);
        batch.swap(inbox_);
    }
    for (auto& f : batch)
        f();
    draining_ = false;
    if (!running_)
        return;
    {
        // done_ is set after the job's last post, so done_ with an empty inbox means everything was run.
        // Read afresh: more may have been posted while the batch ran.
        std::lock_guard lock(mutex_);
        if (!done_ || !inbox_.empty())
            return;
    }
    poll_.stop();
    wait();
    running_ = false; // before the signal: its handlers may start the next job
    emit finished();
}

} // namespace hetplan
