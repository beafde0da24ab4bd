#pragma once
// One background job on a std::thread whose messages reach the GUI thread through a mailbox: the worker
// posts closures under a std::mutex, and a GUI-thread timer (kPollMs) runs them, in order, while the job is
// going. No Qt object is touched from the worker. Why not QtConcurrent: docs/architecture.md, "The desktop app".
#include <QObject>
#include <QTimer>

#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hetplan {

class WorkerThread : public QObject {
    Q_OBJECT
public:
    static constexpr int kPollMs = 10;
    // Called on the worker: queues `f` to run on the GUI thread (dropped if this object is destroyed first).
    using Post = std::function<void(std::function<void()> f)>;

    explicit WorkerThread(QObject* parent = nullptr);
    ~WorkerThread() override; // joins the worker (cancel it first); closures not yet delivered are dropped

    // True from start() until finished() is emitted, so a new job never starts while the last one's
    // messages are still on their way.
    bool isRunning() const { return running_; }
    // Runs `job(post)` on a new thread; false if a job is running.
    bool start(std::function<void(const Post& post)> job);
    // Blocks until the worker thread has ended (tests and shutdown). Its closures and finished() are still
    // delivered by the event loop afterwards.
    void wait();

signals:
    // On the GUI thread, after every closure the job posted has run and returned.
    void finished();

private:
    void drain();

    std::thread thread_;
    std::mutex mutex_; // guards inbox_ and done_
    std::vector<std::function<void()>> inbox_;
    bool done_ = false;
    // GUI thread only. A closure whose slot spins a nested event loop (a dialog) holds back the closures
    // after it until it returns: drain() does not re-enter, so the order always holds.
    bool draining_ = false;
    bool running_ = false;
    QTimer poll_;
};

} // namespace hetplan
