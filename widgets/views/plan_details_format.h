#pragma once
// Helpers shared by the plan-details section builders (plan_details_layout.cpp, plan_details_spmd.cpp and
// the planner displays in details/):
// a reader that hands out a section's keys and keeps what nobody read, number formats with units, and
// the block constructors. Internal to the details view.
#include "plan_details_layout.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>

namespace hetplan::details {

// Hands out a section's values; what is never taken stays in rest() for the "Other values" tree.
class SectionReader {
public:
    explicit SectionReader(QJsonObject object) : rest_(std::move(object)) {}
    QJsonValue take(const QString& key)
    {
        const QJsonValue v = rest_.value(key);
        rest_.remove(key);
        return v;
    }
    QJsonObject takeObject(const QString& key) { return take(key).toObject(); }
    QJsonArray takeArray(const QString& key) { return take(key).toArray(); }
    bool has(const QString& key) const { return rest_.contains(key); }
    const QJsonObject& rest() const { return rest_; }

private:
    QJsonObject rest_;
};

// QObject::tr for the section builders (free functions).
inline QString tr(const char* text) { return QObject::tr(text); }

QString number(double v, int digits = 4);      // 4 significant digits, no exponent below 1e6
QString integer(const QJsonValue& v);          // "16"; "–" when missing
QString seconds(const QJsonValue& v);          // "12.3 ms", "1.24 s", "0"; "–" when missing
QString percent(double fraction);              // "40.8 %"
QString layerRange(const QJsonValue& pair);    // [0, 14] -> "[0, 14)"
QString rangesFromBounds(const QJsonArray& b); // [0, 26, 50] -> "[0, 26) [26, 50)"
QString joined(const QJsonArray& values);      // [4, 4, 2] -> "4, 4, 2"
QString scalar(const QJsonValue& v);           // a number, string or yes/no; "" for objects and arrays

DetailsBlock table(const QString& heading, const QStringList& columns);
DetailsBlock keyValues(const QString& heading); // a two-column "quantity | value" table
void addRow(DetailsBlock& kv, const QString& key, const QString& value);
// The values no builder read, as a tree (nothing when every key was read).
void addRest(DetailsSection& section, const SectionReader& reader);

} // namespace hetplan::details
