// Replays files through the fuzz entries with the normal build, so every corpus file and every crash
// reproducer stays a regression test (registered per target in fuzz/CMakeLists.txt).
//   hetplan-fuzz-replay TARGET PATH...          each file, or every file under each folder
//   hetplan-fuzz-replay --check-targets NAME... the fuzz executables CMake builds match targets()
//   hetplan-fuzz-replay --make-project-seed OUT writes the small project the project corpus starts from
// Exit 0 when every file went through; a crash or an escaping exception fails the test.
#include "fuzz_entries.h"

#include "core/io/examples.h"
#include "core/io/project_store.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <iostream>
#include <set>

using namespace hetplan;

namespace {

std::vector<QString> filesUnder(const QString& path)
{
    if (QFileInfo(path).isFile())
        return {path};
    std::vector<QString> files;
    for (QDirIterator it(path, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories); it.hasNext();)
        files.push_back(it.next());
    std::sort(files.begin(), files.end());
    return files;
}

int replay(const std::string& name, const std::vector<std::string>& paths)
{
    const fuzz::Target* target = fuzz::findTarget(name);
    if (!target) {
        std::cerr << "no fuzz target named '" << name << "'\n";
        return 2;
    }
    int count = 0;
    for (const std::string& p : paths)
        for (const QString& file : filesUnder(QString::fromStdString(p))) {
            QFile f(file);
            if (!f.open(QIODevice::ReadOnly)) {
                std::cerr << "cannot read " << file.toStdString() << "\n";
                return 2;
            }
            const QByteArray bytes = f.readAll();
            std::cout << name << ": " << file.toStdString() << std::endl; // names the culprit if the entry crashes
            target->run(reinterpret_cast<const std::uint8_t*>(bytes.constData()), std::size_t(bytes.size()));
            ++count;
        }
    std::cout << name << ": " << count << " file(s) replayed without a crash\n";
    return count > 0 ? 0 : 1; // an empty corpus is a broken set-up, not a pass
}

int checkTargets(const std::vector<std::string>& built)
{
    std::set<std::string> known, listed(built.begin(), built.end());
    for (const fuzz::Target& t : fuzz::targets())
        known.insert(t.name);
    if (known == listed)
        return 0;
    for (const std::string& n : known)
        if (!listed.count(n))
            std::cerr << "reader '" << n << "' has no fuzz executable in fuzz/CMakeLists.txt\n";
    for (const std::string& n : listed)
        if (!known.count(n))
            std::cerr << "fuzz executable '" << n << "' names no entry in fuzz_entries.cpp\n";
    return 1;
}

int makeProjectSeed(const std::string& out)
{
    Project project;
    project.clusters.push_back(exampleCluster("poplar-b"));
    project.models.push_back({loadModel("example:bert-base"), {}});
    project.jobs.push_back({"job", Job{}});
    saveProject(project, out);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << "usage: hetplan-fuzz-replay TARGET PATH... | --check-targets NAME... | --make-project-seed OUT\n";
        return 2;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "--check-targets")
        return checkTargets(rest);
    if (args[0] == "--make-project-seed" && rest.size() == 1)
        return makeProjectSeed(rest[0]);
    return replay(args[0], rest);
}
