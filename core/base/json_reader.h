#pragma once
// Validating accessors over a QJsonObject: every failure names the file and the field path
// ("nodes[2].gpus") and says why. Used by every JSON reader in core/io.
#include "quote.h"
#include "units.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <optional>
#include <string>
#include <vector>

namespace hetplan {

class JsonReader {
public:
    JsonReader(QJsonObject o, std::string file, std::string path = {})
        : o_(std::move(o)), file_(std::move(file)), path_(std::move(path))
    {}

    const QJsonObject& object() const { return o_; }
    const std::string& file() const { return file_; }
    // The path of `key` below this object; a key from the input that is not a plain name is quoted
    // (fieldKey), so a newline or escape code in it cannot reach the error line.
    std::string field(const std::string& key) const
    {
        const std::string k = fieldKey(key);
        return path_.empty() ? k : path_ + (k.rfind("[\"", 0) == 0 ? "" : ".") + k;
    }
    bool has(const std::string& key) const { return o_.contains(QString::fromStdString(key)); }
    QJsonValue value(const std::string& key) const { return o_.value(QString::fromStdString(key)); }
    [[noreturn]] void fail(const std::string& key, const std::string& reason) const;

    std::string string(const std::string& key) const;
    std::string string(const std::string& key, const std::string& def) const;
    double number(const std::string& key) const;
    double number(const std::string& key, double def) const;
    int integer(const std::string& key) const;
    int integer(const std::string& key, int def) const;
    bool boolean(const std::string& key, bool def) const;
    double quantity(const std::string& key, Dimension dim) const;
    double quantity(const std::string& key, Dimension dim, double def) const;
    JsonReader object(const std::string& key) const;
    QJsonArray array(const std::string& key) const;
    // Element i of an array field as an object reader ("layers[3]").
    JsonReader element(const QJsonArray& a, const std::string& key, int i) const;
    // Rejects keys other than the given ones (typos in hand-written files should not pass silently).
    void allowOnly(std::initializer_list<const char*> keys) const;
    void allowOnly(const std::vector<std::string>& keys) const;

private:
    QJsonObject o_;
    std::string file_, path_;
};

} // namespace hetplan
