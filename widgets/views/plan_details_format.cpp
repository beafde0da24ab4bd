#include "plan_details_format.h"

#include "view_util.h"
#include "widgets/common/number_text.h"

#include <QObject>

#include <cmath>

namespace hetplan::details {

QString number(double v, int digits)
{
    if (v == std::floor(v) && std::abs(v) < 1e15)
        return QString::number(qint64(v));
    const double a = std::abs(v);
    if (a >= 1e6 || (a > 0 && a < 1e-4))
        return QString::number(v, 'g', digits);
    // Fixed notation with `digits` significant digits: 2440.214 -> "2440", 0.40838 -> "0.4084".
    const int decimals = std::max(0, digits - 1 - int(std::floor(std::log10(a > 0 ? a : 1))));
    return trimmedNumber(v, decimals); // 0.3000 -> 0.3
}

QString integer(const QJsonValue& v)
{
    return v.isDouble() ? QString::number(qint64(std::llround(v.toDouble()))) : QStringLiteral("–");
}

QString seconds(const QJsonValue& v)
{
    if (!v.isDouble())
        return QStringLiteral("–");
    return v.toDouble() == 0 ? QStringLiteral("0") : viewutil::formatDuration(v.toDouble());
}

QString percent(double fraction) { return QString::number(fraction * 100, 'f', 1) + QStringLiteral(" %"); }

QString layerRange(const QJsonValue& pair)
{
    const QJsonArray a = pair.toArray();
    if (a.size() != 2)
        return scalar(pair);
    return QStringLiteral("[%1, %2)").arg(integer(a[0]), integer(a[1]));
}

QString rangesFromBounds(const QJsonArray& b)
{
    QStringList out;
    for (qsizetype i = 0; i + 1 < b.size(); ++i)
        out << QStringLiteral("[%1, %2)").arg(integer(b[i]), integer(b[i + 1]));
    return out.join(QLatin1Char(' '));
}

QString joined(const QJsonArray& values)
{
    QStringList out;
    for (const QJsonValue& v : values)
        out << scalar(v);
    return out.join(QStringLiteral(", "));
}

QString scalar(const QJsonValue& v)
{
    if (v.isDouble())
        return number(v.toDouble(), 6);
    if (v.isBool())
        return v.toBool() ? QStringLiteral("yes") : QStringLiteral("no");
    if (v.isString())
        return v.toString();
    return {};
}

DetailsBlock table(const QString& heading, const QStringList& columns)
{
    DetailsBlock b;
    b.kind = DetailsBlock::Kind::Table;
    b.heading = heading;
    b.columns = columns;
    return b;
}

DetailsBlock keyValues(const QString& heading)
{
    return table(heading, {QObject::tr("Quantity"), QObject::tr("Value")});
}

void addRow(DetailsBlock& kv, const QString& key, const QString& value) { kv.rows.push_back({key, value}); }

void addRest(DetailsSection& section, const SectionReader& reader)
{
    if (reader.rest().isEmpty())
        return;
    DetailsBlock b;
    b.kind = DetailsBlock::Kind::Tree;
    b.heading = QObject::tr("Other values");
    b.tree = jsonTree(reader.rest());
    section.blocks.push_back(std::move(b));
}

} // namespace hetplan::details
