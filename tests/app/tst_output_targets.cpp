// What every writing command does to the path it is given (--out, --trace), through the real hetplan-cli:
// a FIFO and a character device are written through and stay what they were (`--out /dev/null` must never
// replace the system's /dev/null with a file), a directory is refused with exit 2 and left alone, a regular
// file is replaced whole, and a symbolic link keeps pointing at the file that was replaced.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cerrno>
#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace hetplan;
using namespace hetplan::test;

namespace {

mode_t typeOf(const QString& path)
{
    struct stat st {};
    return ::lstat(path.toLocal8Bit().constData(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// Reads a FIFO from before the writer opens it until the writer is done (`done` set, then the rest
// drained), so a writer never blocks on a full pipe.
class FifoReader {
public:
    explicit FifoReader(const QString& path)
    {
        fd_ = ::open(path.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK);
        thread_ = std::thread([this] {
            char buf[65536];
            for (;;) {
                const bool last = done_.load();
                for (;;) {
                    const ssize_t n = ::read(fd_, buf, sizeof buf);
                    if (n > 0)
                        data_.append(buf, n);
                    else
                        break;
                }
                if (last)
                    return;
                ::usleep(2000);
            }
        });
    }
    ~FifoReader() { finish(); }
    QByteArray finish()
    {
        if (thread_.joinable()) {
            done_ = true;
            thread_.join();
            ::close(fd_);
        }
        return data_;
    }
    bool opened() const { return fd_ >= 0; }

private:
    int fd_ = -1;
    std::atomic<bool> done_{false};
    QByteArray data_;
    std::thread thread_;
};

} // namespace

class TestOutputTargets : public QObject {
    Q_OBJECT
    QTemporaryDir dir;
    QString plan, profile;
    QString path(const QString& name) const { return dir.filePath(name); }

    // Each writing command, with `target` as the file it writes (the flag is the last but one argument),
    // and what its output starts with.
    struct Writer {
        const char* name;
        QStringList args;
        QByteArray startsWith;
    };
    std::vector<Writer> writers(const QString& target) const
    {
        const QStringList request{"--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--gbs", "32"};
        return {
            {"plan --out", QStringList{"plan"} + request + QStringList{"--planner", "uniform", "--quiet", "--out", target},
             "{"},
            {"compare --out", QStringList{"compare"} + request + QStringList{"--planners", "uniform", "--out", target},
             "{"},
            {"sweep --out", QStringList{"sweep"} + request + QStringList{"--planners", "uniform", "--vary", "gbs=16,32", "--out", target},
             "{"},
            {"simulate --out", {"simulate", "--plan", plan, "--out", target}, "{"},
            {"simulate --trace", {"simulate", "--plan", plan, "--trace", target}, "{"},
            {"export --out", {"export", "--plan", plan, "--format", "megatron-launch", "--out", target}, "#!"},
            {"import --out", {"import", "--format", "sailor", "--in", profile, "--device", "V100-16", "--out", target},
             "{"},
            {"profile --out", {"profile", "--model", "example:gpt2-amp", "--device", "T4", "--out", target}, "{"},
        };
    }

private slots:
    void initTestCase()
    {
        QVERIFY(dir.isValid());
        plan = path("plan.json");
        const CliResult r = runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp",
                                    "--gbs", "32", "--planner", "uniform", "--quiet", "--out", plan});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        profile = QString::fromStdString(fixture("profiles/sailor/valid.json"));
    }

    void fifoIsWrittenThrough()
    {
        for (const Writer& w : writers(path("fifo"))) {
            QFile::remove(path("fifo"));
            QCOMPARE(::mkfifo(path("fifo").toLocal8Bit().constData(), 0600), 0);
            FifoReader reader(path("fifo"));
            QVERIFY(reader.opened());
            const CliResult r = runCli(w.args);
            const QByteArray got = reader.finish();
            QVERIFY2(r.exitCode == 0, qPrintable(QString(w.name) + ": " + r.err));
            QVERIFY2(typeOf(path("fifo")) == S_IFIFO, w.name);
            QVERIFY2(got.startsWith(w.startsWith), qPrintable(QString(w.name) + ": read " + got.left(40)));
        }
    }

    void characterDeviceIsWrittenThrough()
    {
        // A null device of our own (mknod needs root, which CI has): if a regression renamed a file over it,
        // only this copy would be lost, never the system's /dev/null.
        const QString null = path("null");
        if (::mknod(null.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 3)) != 0)
            QSKIP("mknod needs root");
        for (const Writer& w : writers(null)) {
            const CliResult r = runCli(w.args);
            QVERIFY2(r.exitCode == 0, qPrintable(QString(w.name) + ": " + r.err));
            QVERIFY2(typeOf(null) == S_IFCHR, qPrintable(QString(w.name) + " replaced the device"));
        }
        // The same through a symbolic link to it (what /dev/stdout and friends are).
        QVERIFY(QFile::link(null, path("null-link")));
        const CliResult r = runCli(writers(path("null-link"))[0].args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(typeOf(null), mode_t(S_IFCHR));
        QCOMPARE(typeOf(path("null-link")), mode_t(S_IFLNK));
    }

    void directoryIsRefused()
    {
        QVERIFY(QDir().mkpath(path("a-folder")));
        for (const Writer& w : writers(path("a-folder"))) {
            const CliResult r = runCli(w.args);
            QVERIFY2(r.exitCode == 2, qPrintable(QString(w.name) + ": exit " + QString::number(r.exitCode)));
            QVERIFY2(r.err.contains("is a directory"), qPrintable(r.err));
            QVERIFY(typeOf(path("a-folder")) == S_IFDIR);
        }
    }

    // A target that cannot be written (its folder is missing) is refused before the command does its work:
    // exit 2 naming the path, nothing on stdout (compare printed its table, sweep its progress, before
    // finding out), and a search that would run for seconds is not started (its CPU time is not spent).
    void unwritableTargetIsRefusedBeforeTheWork()
    {
        const QString target = path("no-such-folder/out.json");
        for (const Writer& w : writers(target)) {
            if (QString(w.name).startsWith("export") || QString(w.name).startsWith("import") ||
                QString(w.name).startsWith("profile"))
                continue; // no search before their write
            const CliResult r = runCli(w.args);
            QVERIFY2(r.exitCode == 2, qPrintable(QString(w.name) + ": exit " + QString::number(r.exitCode)));
            QVERIFY2(r.err.startsWith("error: " + target + ": file: cannot be written: "), qPrintable(r.err));
            QVERIFY2(r.out.isEmpty(), qPrintable(QString(w.name) + " printed: " + r.out));
            QVERIFY2(!r.err.contains("sweep: "), qPrintable(r.err));
        }
        // A random search of 10,000,000 draws under a 3-second limit: refused first, it spends no search time.
        rusage before{}, after{};
        ::getrusage(RUSAGE_CHILDREN, &before);
        const CliResult r =
            runCli({"plan", "--cluster", "example:amp-het-cluster", "--model", "example:gpt2-amp", "--planner",
                    "random", "--option", "trials=10000000", "--time-limit", "3", "--out", target});
        ::getrusage(RUSAGE_CHILDREN, &after);
        QCOMPARE(r.exitCode, 2);
        auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
        const double cpu =
            seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime);
        qInfo("refused plan: %.2f s CPU", cpu);
        QVERIFY2(cpu < 1.5, qPrintable(QString::number(cpu)));
    }

    void regularFileIsReplacedAndLinksKept()
    {
        for (const Writer& w : writers(path("target"))) {
            QFile::remove(path("target"));
            QFile::remove(path("link"));
            {
                QFile f(path("target"));
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write("old content that is longer than nothing");
            }
            QVERIFY(QFile::link(path("target"), path("link")));
            QStringList args = w.args;
            args[args.indexOf(path("target"))] = path("link");
            const CliResult r = runCli(args);
            QVERIFY2(r.exitCode == 0, qPrintable(QString(w.name) + ": " + r.err));
            QCOMPARE(typeOf(path("link")), mode_t(S_IFLNK));
            QFile f(path("target"));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(f.readAll().startsWith(w.startsWith), w.name);
            // Nothing but the target and the link are left behind (no temporary copies).
            const QStringList left = QDir(dir.path()).entryList({"target*", "link*"}, QDir::Files | QDir::System);
            QCOMPARE(left, QStringList({"link", "target"}));
        }
    }
};

QTEST_GUILESS_MAIN(TestOutputTargets)
#include "tst_output_targets.moc"
