#include "core/io/formats/import_util.h"

#include "core/base/errors.h"
#include "core/base/input_file.h"
#include "core/base/json_parse.h"
#include "core/base/numbers.h"
#include "core/model/device.h"

#include <QByteArray>
#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QJsonParseError>
#include <cmath>

namespace hetplan::importutil {

std::string readBytes(const std::string& path)
{
    if (!QFile::exists(QString::fromStdString(path)))
        throw InputError(path, "file", "not found");
    return readInputFile(path); // regular files only, size-guarded
}

std::string readHead(const std::string& path, size_t limit)
{
    const QFileInfo info(QString::fromStdString(path));
    if (!info.isFile() || !info.isReadable())
        return {};
    QFile f(info.filePath());
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.read(qint64(limit)).toStdString();
}

bool directoryHolds(const std::string& path, const std::string& pattern)
{
    const QDir dir(QString::fromStdString(path));
    if (!QFileInfo(dir.path()).isDir())
        return false;
    const QRegularExpression re(QRegularExpression::anchoredPattern(QString::fromStdString(pattern)));
    for (const QString& name : dir.entryList(QDir::Files))
        if (re.match(name).hasMatch())
            return true;
    return false;
}

QJsonDocument readJsonDocument(const std::string& path)
{
    const std::string bytes = readBytes(path);
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(bytes), &err);
    if (err.error != QJsonParseError::NoError) {
        // Qt reports a byte offset; people look for line:column.
        int line = 1, column = 1;
        const size_t end = std::min(bytes.size(), static_cast<size_t>(std::max(0, err.offset)));
        for (size_t i = 0; i < end; ++i) {
            if (bytes[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        throw InputError(path, "json",
                         "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
                             err.errorString().toStdString());
    }
    if (const auto key = duplicateKeyPath(bytes))
        throw InputError(path, *key,
                         "duplicate key: a JSON object must not repeat a key (only one of the values would be read)");
    return doc;
}

double nonNegativeNumber(const QJsonValue& v, const std::string& file, const std::string& field)
{
    if (v.isUndefined())
        throw InputError(file, field, "missing");
    if (!v.isDouble())
        throw InputError(file, field, "not a number");
    const double x = v.toDouble();
    if (!std::isfinite(x))
        throw InputError(file, field, "not a finite number");
    if (x < 0)
        throw InputError(file, field, "negative value " + messageNumber(x));
    return x;
}

bool parseInt(std::string_view text, long long& out)
{
    if (text.empty() || text.front() == '+' || text.front() == '-')
        return false;
    const std::optional<long long> v = wholeNumber(text);
    out = v.value_or(0);
    return v.has_value();
}

std::string_view trim(std::string_view s)
{
    const char* ws = " \t\r\n";
    const size_t b = s.find_first_not_of(ws);
    if (b == std::string_view::npos)
        return {};
    const size_t e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

void requireDeviceType(const std::string& deviceType, const std::string& file, const std::string& format)
{
    if (trim(deviceType).empty())
        throw InputError(file, "device", "the " + format + " format does not name the GPU; a device type is required");
}

std::string canonicalDevice(const std::string& name)
{
    const DeviceType* d = DeviceCatalog::builtin().find(name);
    return d ? d->name : name;
}

} // namespace hetplan::importutil
