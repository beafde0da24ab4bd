#include "property_panel.h"

#include "device_style.h"

#include "widgets/commands/cluster_fields.h"

#include "core/base/qstrings.h"
#include "core/model/device.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSpinBox>
#include <QUndoStack>
#include <QVBoxLayout>

#include <initializer_list>
#include <memory>

namespace hetplan {

namespace {

// A spin box that writes its value as the canvas cards do (trimmedNumber: "10 Gbps", not "10.00 Gbps").
class TrimmedSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double value) const override { return trimmedNumber(value, decimals()); }
};

QDoubleSpinBox* numberBox(QWidget* parent, const char* name, double lo, double hi, int decimals, const QString& suffix)
{
    auto* b = new TrimmedSpinBox(parent);
    b->setObjectName(QLatin1String(name));
    b->setRange(lo, hi);
    b->setDecimals(decimals);
    b->setSuffix(suffix);
    b->setKeyboardTracking(false); // one value per finished entry, not one per keystroke
    b->setAlignment(Qt::AlignRight);
    return b;
}

// What "catalog price" means for this device: the figure with its source and date, or why there is none.
QString priceToolTip(const DeviceType* d)
{
    if (!d)
        return {};
    const QString where = QStringLiteral("%1 (%2)").arg(toQString(d->priceSource), toQString(d->priceDate));
    if (!d->pricePerGpuHour)
        return PropertyPanel::tr("No catalog price: %1. Set your price per GPU-hour to get plan costs.").arg(where);
    return PropertyPanel::tr("0 = the catalog price, $%1 per GPU-hour: %2").arg(*d->pricePerGpuHour, 0, 'f', 3).arg(where);
}

constexpr double kGB = 1e9;       // GB/s <-> bytes/s
constexpr double kGbit = 1e9 / 8; // Gbps <-> bytes/s
constexpr double kMicro = 1e-6;   // µs <-> s

} // namespace

PropertyPanel::PropertyPanel(ClusterDocument* doc, QUndoStack* stack, QWidget* parent)
    : QWidget(parent), doc_(doc), undo_(stack)
{
    setObjectName(QStringLiteral("clusterPropertyPanel"));
    title_ = new QLabel(this);
    QFont f = title_->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    title_->setFont(f);
    error_ = new QLabel(this);
    error_->setObjectName(QStringLiteral("errorLabel"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #B00020;"));
    error_->hide();
    // A failed node's state has no editor of its own: it is said first, under the title, where a short
    // dock cannot scroll it out of sight.
    failedNote_ = new QLabel(tr("Failed: planning leaves this node out. Right-click it on the canvas and choose "
                                "Mark healthy to plan with it again."),
                             this);
    failedNote_->setObjectName(QStringLiteral("failedNote"));
    failedNote_->setWordWrap(true);
    failedNote_->setStyleSheet(QStringLiteral("color: #B00020;"));
    failedNote_->hide();

    clusterPage_ = buildClusterPage();
    nodePage_ = buildNodePage();
    linkPage_ = buildLinkPage();
    multiPage_ = new QWidget(this);
    multiInfo_ = new QLabel(multiPage_);
    multiInfo_->setWordWrap(true);
    (new QVBoxLayout(multiPage_))->addWidget(multiInfo_);

    // Pages are shown one at a time in a plain layout (not a QStackedWidget) so word-wrapped labels get
    // the height they need.
    // Inside a scroll area: a short dock scrolls instead of squeezing rows on top of each other.
    auto* body = new QWidget;
    auto* lay = new QVBoxLayout(body);
    lay->addWidget(title_);
    lay->addWidget(failedNote_);
    lay->addWidget(error_);
    for (QWidget* page : {clusterPage_, nodePage_, linkPage_, multiPage_}) {
        page->setContentsMargins(0, 0, 0, 0);
        lay->addWidget(page);
    }
    lay->addStretch(1);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(body);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    // Narrower, the form wraps more rows than its scroll area makes room for, and the rows overlap.
    setMinimumWidth(250);
    refresh();
}

QWidget* PropertyPanel::buildClusterPage()
{
    auto* w = new QWidget(this);
    clusterName_ = new QLineEdit(w);
    clusterName_->setObjectName(QStringLiteral("clusterName"));
    clusterInfo_ = new QLabel(w);
    clusterInfo_->setWordWrap(true);
    clusterInfo_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    clusterInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    intraLat_ = numberBox(w, "intraLatency", 0, 1e5, 2, QStringLiteral(" µs"));
    interLat_ = numberBox(w, "interLatency", 0, 1e5, 2, QStringLiteral(" µs"));
    cpuIntraBw_ = numberBox(w, "cpuIntraBandwidth", 0.001, 1e5, 2, QStringLiteral(" GB/s"));
    cpuInterBw_ = numberBox(w, "cpuInterBandwidth", 0.001, 1e5, 2, QStringLiteral(" GB/s"));
    intraLat_->setToolTip(tr("Per-message latency between GPUs of one node"));
    interLat_->setToolTip(tr("Per-message latency between nodes, unless a link sets its own"));
    cpuIntraBw_->setToolTip(tr("CPU communicator path (host-memory copies) inside a node; HetHub measured 4.7 GB/s"));
    cpuInterBw_->setToolTip(tr("CPU communicator path between nodes, used between GPU vendors; HetHub measured "
                               "2.1 GB/s"));
    auto* page = new QVBoxLayout(w);
    page->setContentsMargins(0, 0, 0, 0);
    auto* form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapLongRows); // a narrow dock puts labels above their fields
    page->addLayout(form);
    page->addWidget(clusterInfo_); // below the form, not in it: QFormLayout squeezes wrapped labels
    form->addRow(tr("Name:"), clusterName_);
    form->addRow(tr("Intra-node latency:"), intraLat_);
    form->addRow(tr("Inter-node latency:"), interLat_);
    form->addRow(tr("CPU path, intra-node:"), cpuIntraBw_);
    form->addRow(tr("CPU path, inter-node:"), cpuInterBw_);
    connect(clusterName_, &QLineEdit::editingFinished, this, &PropertyPanel::commitClusterName);
    connect(intraLat_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(0, clusterField::intraLatency, v * kMicro); });
    connect(interLat_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(0, clusterField::interLatency, v * kMicro); });
    connect(cpuIntraBw_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(0, clusterField::cpuIntraBandwidth, v * kGB); });
    connect(cpuInterBw_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(0, clusterField::cpuInterBandwidth, v * kGB); });
    return w;
}

QWidget* PropertyPanel::buildNodePage()
{
    auto* w = new QWidget(this);
    nodeName_ = new QLineEdit(w);
    nodeName_->setObjectName(QStringLiteral("nodeName"));
    nodeType_ = new QComboBox(w);
    nodeType_->setObjectName(QStringLiteral("nodeDeviceType"));
    for (const DeviceType& d : DeviceCatalog::builtin().all())
        nodeType_->addItem(toQString(d.name));
    nodeGpus_ = new QSpinBox(w);
    nodeGpus_->setObjectName(QStringLiteral("nodeGpus"));
    nodeGpus_->setRange(1, 64);
    nodeGpus_->setKeyboardTracking(false);
    nodeIntra_ = numberBox(w, "nodeIntraBandwidth", 0, 1e4, 2, QStringLiteral(" GB/s"));
    nodeIntra_->setSpecialValueText(tr("device default"));
    nodeNic_ = numberBox(w, "nodeNicBandwidth", 0.1, 1e5, 2, QStringLiteral(" Gbps"));
    nodePrice_ = numberBox(w, "nodePricePerGpuHour", 0, 1000, 3, tr(" per GPU-hour"));
    nodePrice_->setPrefix(QStringLiteral("$"));
    nodePrice_->setSpecialValueText(tr("catalog price"));
    nodeComm_ = new QComboBox(w);
    nodeComm_->setObjectName(QStringLiteral("nodeCommunicator"));
    nodeComm_->addItem(tr("GPU RDMA"));
    nodeComm_->addItem(tr("CPU Ethernet"));
    nodeComm_->setToolTip(tr("How this node's GPUs reach other nodes: GPU-direct RDMA, or through host "
                             "memory over Ethernet (needed between vendors whose libraries cannot talk)"));
    nodeInfo_ = new QLabel(w);
    nodeInfo_->setWordWrap(true);
    nodeInfo_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* page = new QVBoxLayout(w);
    page->setContentsMargins(0, 0, 0, 0);
    auto* form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapLongRows); // a narrow dock puts labels above their fields
    page->addLayout(form);
    page->addWidget(nodeInfo_);
    form->addRow(tr("Name:"), nodeName_);
    form->addRow(tr("Device type:"), nodeType_);
    form->addRow(tr("GPUs:"), nodeGpus_);
    form->addRow(tr("Intra-node bandwidth:"), nodeIntra_);
    form->addRow(tr("NIC bandwidth:"), nodeNic_);
    form->addRow(tr("Communicator:"), nodeComm_);
    form->addRow(tr("Price:"), nodePrice_);
    connect(nodeName_, &QLineEdit::editingFinished, this, &PropertyPanel::commitNodeName);
    connect(nodeType_, &QComboBox::activated, this, &PropertyPanel::commitDeviceType);
    connect(nodeGpus_, &QSpinBox::valueChanged, this, [this](int v) { pushChange(node_, nodeField::gpus, v); });
    connect(nodeIntra_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(node_, nodeField::intraBandwidth, v * kGB); });
    connect(nodeNic_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(node_, nodeField::nicBandwidth, v * kGbit); });
    // 0 (shown as "catalog price") clears the override: the cluster file then leaves the field out.
    connect(nodePrice_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(node_, nodeField::pricePerGpuHour, v > 0 ? v : -1.0); });
    connect(nodeComm_, &QComboBox::activated, this, [this](int i) {
        pushChange(node_, nodeField::communicator, i == 1 ? Communicator::CpuEthernet : Communicator::GpuRdma);
    });
    return w;
}

QWidget* PropertyPanel::buildLinkPage()
{
    auto* w = new QWidget(this);
    linkEnds_ = new QLabel(w);
    linkBw_ = numberBox(w, "linkBandwidth", 0.01, 1e5, 2, QStringLiteral(" Gbps"));
    linkLat_ = numberBox(w, "linkLatency", 0, 1e6, 2, QStringLiteral(" µs"));
    auto* form = new QFormLayout(w);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Between:"), linkEnds_);
    form->addRow(tr("Bandwidth:"), linkBw_);
    form->addRow(tr("Latency:"), linkLat_);
    connect(linkBw_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(link_, linkField::bandwidth, v * kGbit); });
    connect(linkLat_, &QDoubleSpinBox::valueChanged, this,
            [this](double v) { pushChange(link_, linkField::latency, v * kMicro); });
    return w;
}

void PropertyPanel::showSelection(const std::vector<int>& nodes, const std::vector<int>& links)
{
    if (nodes != selNodes_ || links != selLinks_)
        showError({}); // a refused edit's message belongs to the item it was about
    selNodes_ = nodes;
    selLinks_ = links;
    refresh();
}

QString PropertyPanel::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void PropertyPanel::showPage(QWidget* page)
{
    for (QWidget* p : {clusterPage_, nodePage_, linkPage_, multiPage_})
        p->setVisible(p == page);
    // Word-wrapped texts change height with their content (a cluster's description); the scroll area sizes
    // its widget only when the viewport changes, so ask again, else the form's rows overlap.
    if (auto* area = findChild<QScrollArea*>(); area && area->widget())
        QMetaObject::invokeMethod(area->widget(), &QWidget::adjustSize, Qt::QueuedConnection);
}

void PropertyPanel::showError(const QString& text)
{
    error_->setText(text);
    error_->setVisible(!text.isEmpty());
}

void PropertyPanel::refresh()
{
    node_ = link_ = -1;
    failedNote_->hide();
    if (selNodes_.size() == 1 && selLinks_.empty() && selNodes_[0] < doc_->nodeCount())
        node_ = selNodes_[0];
    else if (selLinks_.size() == 1 && selNodes_.empty() && selLinks_[0] < doc_->linkCount())
        link_ = selLinks_[0];

    // Programmatic updates must not turn into commands.
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QObject* w :
         std::initializer_list<QObject*>{nodeName_, nodeType_, nodeGpus_, nodeIntra_, nodeNic_, nodePrice_, nodeComm_, linkBw_,
                                         linkLat_, clusterName_, intraLat_, interLat_, cpuIntraBw_, cpuInterBw_})
        blockers.push_back(std::make_unique<QSignalBlocker>(w));

    if (node_ >= 0) {
        const Node& n = doc_->node(node_);
        const DeviceType* d = DeviceCatalog::builtin().find(n.deviceType);
        nodeName_->setText(toQString(n.name));
        nodeType_->setCurrentIndex(nodeType_->findText(toQString(n.deviceType)));
        nodeGpus_->setValue(n.gpus);
        nodeIntra_->setValue(n.intraBandwidth / kGB);
        nodeIntra_->setToolTip(
            d ? tr("0 = the device's default, %1 (%2)").arg(formatGBps(d->intraNodeBandwidth), toQString(d->intraNodeLink))
              : QString());
        nodeNic_->setValue(n.nicBandwidth / kGbit);
        nodeComm_->setCurrentIndex(n.communicator == Communicator::CpuEthernet ? 1 : 0);
        nodePrice_->setValue(n.pricePerGpuHour > 0 ? n.pricePerGpuHour : 0);
        nodePrice_->setToolTip(priceToolTip(d));
        nodeInfo_->setText(d ? tr("%1 %2 · %3 GiB and %4 TFLOPS per GPU\nNode total: %5 GiB, %6 TFLOPS")
                                   .arg(toQString(d->vendor), deviceStyle(d->name).family)
                                   .arg(d->memoryBytes / (1u << 30), 0, 'f', 0)
                                   .arg(d->peakFlops / 1e12, 0, 'f', 1)
                                   .arg(n.gpus * d->memoryBytes / (1u << 30), 0, 'f', 0)
                                   .arg(n.gpus * d->peakFlops / 1e12, 0, 'f', 0)
                             : tr("Unknown device type"));
        title_->setText(n.failed ? tr("Node %1 (failed)").arg(toQString(n.name)) : tr("Node %1").arg(toQString(n.name)));
        failedNote_->setVisible(n.failed);
        showPage(nodePage_);
    } else if (link_ >= 0) {
        const Link& l = doc_->link(link_);
        title_->setText(tr("Link"));
        linkEnds_->setText(QStringLiteral("%1 ↔ %2").arg(toQString(l.a), toQString(l.b)));
        linkBw_->setValue(l.bandwidth / kGbit);
        linkLat_->setValue(l.latency / kMicro);
        showPage(linkPage_);
    } else if (!selNodes_.empty() || !selLinks_.empty()) {
        title_->setText(tr("Selection"));
        multiInfo_->setText(tr("%1 node(s) and %2 link(s) selected.\nSelect a single item to edit it.")
                                .arg(selNodes_.size())
                                .arg(selLinks_.size()));
        showPage(multiPage_);
    } else {
        const Cluster& c = doc_->cluster();
        title_->setText(tr("Cluster"));
        clusterName_->setText(toQString(c.name));
        intraLat_->setValue(c.intraLatency / kMicro);
        interLat_->setValue(c.interLatency / kMicro);
        cpuIntraBw_->setValue(c.cpuIntraBandwidth / kGB);
        cpuInterBw_->setValue(c.cpuInterBandwidth / kGB);
        QString info =
            tr("%1 node(s), %2 GPU(s), %3 explicit link(s).").arg(c.nodes.size()).arg(c.gpuCount()).arg(c.links.size());
        if (!c.description.empty())
            info += QStringLiteral("\n\n") + toQString(c.description);
        clusterInfo_->setText(info);
        showPage(clusterPage_);
    }
}

template <class Object, class Value>
void PropertyPanel::pushChange(int index, const Field<Object, Value>& field, const std::type_identity_t<Value>& value)
{
    if (index < 0 || field.get(ClusterSlot<Object>::read(*doc_, index)) == value)
        return;
    showError({});
    undo_->push(new ChangeValue<Object, Value>(doc_, index, field, value));
}

void PropertyPanel::commitNodeName()
{
    if (node_ < 0)
        return;
    const QString name = nodeName_->text();
    if (name.toStdString() == doc_->node(node_).name)
        return;
    const QString why = doc_->checkNodeName(node_, name);
    if (!why.isEmpty()) {
        showError(why);
        const QSignalBlocker b(nodeName_);
        nodeName_->setText(toQString(doc_->node(node_).name)); // back to the name the node really has
        return;
    }
    pushChange(node_, nodeField::name, name.toStdString());
}

void PropertyPanel::commitDeviceType()
{
    if (node_ < 0)
        return;
    const Node& n = doc_->node(node_);
    const DeviceType* from = DeviceCatalog::builtin().find(n.deviceType);
    const DeviceType* to = DeviceCatalog::builtin().find(nodeType_->currentText().toStdString());
    if (!to || to->name == n.deviceType)
        return;
    // What was the old type's default follows the new type's, in the same undo step as the type: the
    // intra-node bandwidth, and the name while it is still the default one ("a100-3" → "h100-3").
    const bool bandwidthFollows =
        from && n.intraBandwidth == from->intraNodeBandwidth && n.intraBandwidth != to->intraNodeBandwidth;
    const std::string newName = doc_->nameForNewType(node_, to->name);
    const bool macro = bandwidthFollows || !newName.empty();
    if (macro)
        undo_->beginMacro(stepText(nodeField::deviceType.text, toQString(n.name), {}));
    const int index = node_; // the panel refreshes (and may re-read the selection) after each step
    pushChange(index, nodeField::deviceType, to->name);
    if (bandwidthFollows)
        pushChange(index, nodeField::intraBandwidth, to->intraNodeBandwidth);
    if (!newName.empty())
        pushChange(index, nodeField::name, newName);
    if (macro)
        undo_->endMacro();
}

void PropertyPanel::commitClusterName()
{
    const std::string current = doc_->properties().name;
    const QString name = clusterName_->text().trimmed();
    if (name.toStdString() == current)
        return;
    if (const QString why = doc_->checkClusterName(name); !why.isEmpty()) {
        showError(why);
        const QSignalBlocker b(clusterName_);
        clusterName_->setText(toQString(current));
        return;
    }
    pushChange(0, clusterField::name, name.toStdString());
}

} // namespace hetplan
