#include "profile_table.h"

#include "core/cost/memory.h"

#include <QFont>

namespace hetplan {

ProfileTableModel::ProfileTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProfileTableModel::setData(const ModelSpec& model, const Job& job, const Profile& measured,
                                const std::vector<std::string>& devices, int mbs, int tp)
{
    beginResetModel();
    model_ = model;
    devices_ = devices;
    cells_.assign(model.layers.size(), std::vector<Cell>(devices.size()));
    try {
        CostModel costs(model, job, measured);
        for (size_t d = 0; d < devices.size(); ++d) {
            const bool isMeasured = measured.has(devices[d], tp);
            for (int l = 0; l < model.layerCount(); ++l) {
                LayerTiming t = costs.layer(l, devices[d], tp, mbs);
                Cell& c = cells_[l][d];
                c.forward = t.forward;
                c.backward = t.backward;
                c.activation =
                    t.activationBytes >= 0 ? t.activationBytes : activationMemory(model, l, l + 1, tp, mbs, job);
                c.measured = isMeasured;
            }
        }
    } catch (const std::exception&) {
        cells_.clear(); // a profile that does not fit the model shows nothing rather than wrong numbers
    }
    endResetModel();
}

int ProfileTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(cells_.size()); }

int ProfileTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kFixed + 3 * int(devices_.size());
}

QVariant ProfileTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(cells_.size()))
        return {};
    const int row = index.row(), col = index.column();
    const LayerSpec& layer = model_.layers[row];
    if (col < kFixed) {
        if (role == Qt::DisplayRole)
            switch (col) {
            case 0: return QString::fromStdString(layer.name);
            case 1: return QString::fromStdString(toString(layer.kind));
            case 2: return QString::number(layer.params / 1e6, 'f', 2);
            }
        if (role == Qt::EditRole) // the sort role: numbers sort numerically
            return col == 2 ? QVariant(layer.params) : QVariant(row);
        return {};
    }
    const int d = (col - kFixed) / 3, what = (col - kFixed) % 3;
    const Cell& c = cells_[row][d];
    const double v = what == 0 ? c.forward * 1e3 : what == 1 ? c.backward * 1e3 : c.activation / 1048576.0;
    switch (role) {
    case Qt::DisplayRole: return QString::number(v, 'f', what == 2 ? 1 : 3);
    case Qt::EditRole: return v;
    case Qt::TextAlignmentRole: return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (c.measured) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole: return c.measured ? tr("measured (imported profile)") : tr("analytic estimate");
    }
    return {};
}

QVariant ProfileTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (o == Qt::Vertical)
        return section;
    if (section < kFixed)
        return QStringList{tr("layer"), tr("kind"), tr("params (M)")}.value(section);
    const int d = (section - kFixed) / 3, what = (section - kFixed) % 3;
    const QString dev = QString::fromStdString(devices_[d]);
    return dev + (what == 0 ? tr("\nforward (ms)") : what == 1 ? tr("\nbackward (ms)") : tr("\nactivations (MiB)"));
}

} // namespace hetplan
