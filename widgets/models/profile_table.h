#pragma once
// Per layer × device type: forward and backward time and activation memory of one micro-batch, from the
// cost model (measured entries marked). Sort it through a QSortFilterProxyModel (numbers sort as numbers).
#include "core/cost/costmodel.h"

#include <QAbstractTableModel>
#include <memory>

namespace hetplan {

class ProfileTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit ProfileTableModel(QObject* parent = nullptr);
    // Shows `model` on the given device types at micro-batch `mbs` and tensor-parallel degree `tp`.
    void setData(const ModelSpec& model, const Job& job, const Profile& measured,
                 const std::vector<std::string>& devices, int mbs, int tp);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    struct Cell {
        double forward = 0, backward = 0, activation = 0;
        bool measured = false;
    };
    ModelSpec model_;
    std::vector<std::string> devices_;
    std::vector<std::vector<Cell>> cells_; // [layer][device]
    static constexpr int kFixed = 3;       // layer, kind, params
};

} // namespace hetplan
