#include "device_palette.h"

#include "cluster_scene.h"
#include "device_style.h"

#include "core/model/device.h"

#include <QDrag>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace hetplan {

namespace {

// A tree whose drags carry the device type name under the canvas' own MIME type.
class PaletteTree : public QTreeWidget {
public:
    using QTreeWidget::QTreeWidget;

protected:
    QStringList mimeTypes() const override { return {QLatin1String(kDeviceMimeType)}; }
    QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override
    {
        if (items.isEmpty())
            return nullptr;
        auto* m = new QMimeData;
        m->setData(QLatin1String(kDeviceMimeType), items.front()->text(0).toUtf8());
        m->setText(items.front()->text(0));
        return m;
    }
};

QIcon swatch(const QColor& c)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(c.darker(140));
    p.setBrush(c);
    p.drawRoundedRect(QRectF(1, 1, 12, 12), 3, 3);
    return QIcon(pm);
}

} // namespace

DevicePalette::DevicePalette(QWidget* parent) : QWidget(parent)
{
    tree_ = new PaletteTree(this);
    tree_->setObjectName(QStringLiteral("deviceList"));
    tree_->setColumnCount(3);
    tree_->setHeaderLabels({tr("Device"), tr("Memory"), tr("TFLOPS")});
    tree_->setRootIsDecorated(false);
    tree_->setAlternatingRowColors(true);
    tree_->setDragEnabled(true);
    tree_->setDragDropMode(QAbstractItemView::DragOnly);
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    tree_->setUniformRowHeights(true);
    for (const DeviceType& d : DeviceCatalog::builtin().all()) {
        auto* it = new QTreeWidgetItem(tree_);
        const DeviceStyle st = deviceStyle(d.name);
        it->setText(0, QString::fromStdString(d.name));
        it->setIcon(0, swatch(st.color));
        it->setText(1, QStringLiteral("%1 GiB").arg(d.memoryBytes / (1024.0 * 1024 * 1024), 0, 'f', 0));
        it->setText(2, QString::number(d.peakFlops / 1e12, 'f', d.peakFlops < 1e14 ? 1 : 0));
        it->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        it->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        it->setToolTip(0, tr("%1 %2 (%3): %4, %5 TFLOPS\nIntra-node: %6 %7\nDrag onto the canvas to add a node.")
                              .arg(QString::fromStdString(d.vendor), QString::fromStdString(d.name), st.family,
                                   it->text(1), it->text(2), QString::fromStdString(d.intraNodeLink),
                                   formatGBps(d.intraNodeBandwidth)));
    }
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tree_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    tree_->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    if (tree_->topLevelItemCount() > 0)
        tree_->setCurrentItem(tree_->topLevelItem(0));

    gpus_ = new QSpinBox(this);
    gpus_->setObjectName(QStringLiteral("gpusPerNode"));
    gpus_->setRange(1, 64);
    gpus_->setValue(8);
    gpus_->setToolTip(tr("GPUs in each new node"));
    add_ = new QPushButton(tr("Add node"), this);
    add_->setObjectName(QStringLiteral("addNode"));
    add_->setToolTip(tr("Add a node of the selected device type (or double-click the canvas)"));

    auto* title = new QLabel(tr("<b>Devices</b>"), this);
    auto* form = new QFormLayout;
    form->addRow(tr("GPUs per node:"), gpus_);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    lay->addWidget(title);
    lay->addWidget(tree_, 1);
    lay->addLayout(form);
    lay->addWidget(add_);
    setMinimumWidth(170); // names elide before the canvas loses room; whole names in the tooltips

    connect(add_, &QPushButton::clicked, this, [this] {
        if (!currentDeviceType().isEmpty())
            emit addRequested(currentDeviceType(), gpusPerNode());
    });
    connect(tree_, &QTreeWidget::itemDoubleClicked, this,
            [this](QTreeWidgetItem* it) { emit addRequested(it->text(0), gpusPerNode()); });
    connect(tree_, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem* cur) { add_->setEnabled(cur != nullptr); });
}

QString DevicePalette::currentDeviceType() const
{
    return tree_->currentItem() ? tree_->currentItem()->text(0) : QString();
}

void DevicePalette::setCurrentDeviceType(const QString& name)
{
    const QList<QTreeWidgetItem*> hits = tree_->findItems(name, Qt::MatchExactly, 0);
    if (!hits.isEmpty())
        tree_->setCurrentItem(hits.front());
}

int DevicePalette::gpusPerNode() const { return gpus_->value(); }

void DevicePalette::setGpusPerNode(int n) { gpus_->setValue(n); }

void DevicePalette::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    tree_->setColumnHidden(2, width() < 250);
}

} // namespace hetplan
