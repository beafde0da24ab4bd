#include "job_panel.h"

#include "widgets/common/gui_errors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSpinBox>

namespace hetplan {

JobPanel::JobPanel(QWidget* parent) : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows); // a narrow dock puts labels above their fields
    gbs_ = new QSpinBox;
    gbs_->setRange(1, 1 << 20);
    gbs_->setToolTip(tr("Samples per training iteration across the whole cluster"));
    seq_ = new QSpinBox;
    seq_->setRange(1, 1 << 20);
    seq_->setToolTip(tr("Tokens per sample; example models are rebuilt for it"));
    precision_ = new QComboBox;
    precision_->addItems({"fp16", "bf16", "fp32"});
    zero_ = new QComboBox;
    zero_->addItems({tr("0 — none"), tr("1 — optimizer states"), tr("2 — + gradients"), tr("3 — + parameters")});
    schedule_ = new QComboBox;
    schedule_->addItems({"1F1B", "GPipe"});
    recompute_ = new QCheckBox(tr("full activation recomputation"));
    backward_ = new QDoubleSpinBox;
    backward_->setRange(0.5, 10);
    backward_->setSingleStep(0.1);
    backward_->setToolTip(tr("Analytic backward time as a multiple of forward"));
    optimizer_ = new QDoubleSpinBox;
    optimizer_->setRange(0, 64);
    optimizer_->setSuffix(tr(" B/param"));
    optimizer_->setToolTip(tr("The optimizer's own states per parameter (Adam's two fp32 moments: 8); the fp32 "
                              "master copy of 16-bit weights and the fp32 copy of fp16 gradients are added from "
                              "the precision"));
    margin_ = new QDoubleSpinBox;
    margin_->setObjectName(QStringLiteral("memoryMargin"));
    margin_->setRange(0, 50);
    margin_->setDecimals(0);
    margin_->setSuffix(tr(" %"));
    margin_->setToolTip(tr("Share of every GPU's memory the plan leaves free, on top of what the memory model "
                           "counts (caching-allocator fragmentation, buffers it does not count)"));
    framework_ = new QComboBox;
    framework_->setObjectName(QStringLiteral("framework"));
    framework_->addItems({"megatron-core", "megatron-legacy", "deepspeed-pipe"}); // Framework's order
    framework_->setToolTip(tr("Whose pipeline sends the simulator models: Megatron-core sends the whole boundary "
                              "tensor from every tensor-parallel rank; legacy Megatron (Megatron-DeepSpeed) and "
                              "DeepSpeed's pipeline engine send 1/tp each and all-gather it at the receiver"));
    tf32_ = new QCheckBox(tr("TF32 for fp32 matrix products"));
    tf32_->setObjectName(QStringLiteral("tf32"));
    tf32_->setToolTip(tr("fp32 jobs on NVIDIA Ampere and later: NVIDIA's PyTorch containers run matrix products "
                         "on the TF32 tensor cores; plain PyTorch leaves TF32 off and runs them on the CUDA cores"));
    sequenceParallel_ = new QCheckBox(tr("sequence parallelism (Megatron)"));
    sequenceParallel_->setObjectName(QStringLiteral("sequenceParallel"));
    // The labels are the ones error messages use (gui_errors.h), so an error names the field seen here.
    form->addRow(jobFieldLabel("global_batch_size"), gbs_);
    form->addRow(jobFieldLabel("sequence_length"), seq_);
    form->addRow(jobFieldLabel("precision"), precision_);
    form->addRow(jobFieldLabel("zero_stage"), zero_);
    form->addRow(jobFieldLabel("schedule"), schedule_);
    form->addRow(QString(), recompute_);
    form->addRow(QString(), tf32_);
    form->addRow(jobFieldLabel("backward_factor"), backward_);
    form->addRow(jobFieldLabel("optimizer_state_bytes_per_param"), optimizer_);
    form->addRow(jobFieldLabel("memory_margin"), margin_);
    form->addRow(jobFieldLabel("framework"), framework_);
    form->addRow(QString(), sequenceParallel_);
    setJob(Job{});
    for (QSpinBox* s : {gbs_, seq_})
        connect(s, &QSpinBox::valueChanged, this, &JobPanel::emitEdited);
    for (QComboBox* c : {precision_, zero_, schedule_, framework_})
        connect(c, &QComboBox::currentIndexChanged, this, &JobPanel::emitEdited);
    for (QDoubleSpinBox* s : {backward_, optimizer_, margin_})
        connect(s, &QDoubleSpinBox::valueChanged, this, &JobPanel::emitEdited);
    for (QCheckBox* c : {recompute_, tf32_, sequenceParallel_})
        connect(c, &QCheckBox::toggled, this, &JobPanel::emitEdited);
    // TF32 only changes fp32 jobs; the box stays (with its value) but is greyed out for 16-bit ones.
    connect(precision_, &QComboBox::currentIndexChanged, this,
            [this](int i) { tf32_->setEnabled(Precision(i) == Precision::FP32); });
}

void JobPanel::setJob(const Job& j)
{
    updating_ = true;
    gbs_->setValue(j.globalBatchSize);
    seq_->setValue(j.sequenceLength);
    precision_->setCurrentIndex(int(j.precision));
    zero_->setCurrentIndex(j.zeroStage);
    schedule_->setCurrentIndex(j.schedule == Schedule::GPipe ? 1 : 0);
    recompute_->setChecked(j.recompute);
    tf32_->setChecked(j.tf32);
    tf32_->setEnabled(j.precision == Precision::FP32);
    backward_->setValue(j.backwardFactor);
    optimizer_->setValue(j.optimizerStateBytesPerParam);
    margin_->setValue(j.memoryMargin * 100);
    framework_->setCurrentIndex(int(j.framework));
    sequenceParallel_->setChecked(j.sequenceParallel);
    updating_ = false;
}

Job JobPanel::job() const
{
    Job j;
    j.globalBatchSize = gbs_->value();
    j.sequenceLength = seq_->value();
    j.precision = Precision(precision_->currentIndex());
    j.zeroStage = zero_->currentIndex();
    j.schedule = schedule_->currentIndex() == 1 ? Schedule::GPipe : Schedule::OneFOneB;
    j.recompute = recompute_->isChecked();
    j.tf32 = tf32_->isChecked();
    j.backwardFactor = backward_->value();
    j.optimizerStateBytesPerParam = optimizer_->value();
    j.memoryMargin = margin_->value() / 100;
    j.framework = Framework(framework_->currentIndex());
    j.sequenceParallel = sequenceParallel_->isChecked();
    return j;
}

void JobPanel::emitEdited()
{
    if (!updating_)
        emit jobEdited(job());
}

} // namespace hetplan
