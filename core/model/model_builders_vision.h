#pragma once
// Example-model builders for the image models (internal to core/model; model_builders.cpp registers them).
#include "model.h"

#include <string>

namespace hetplan {

// ViT-B/16 at 224×224: 196 patches + [CLS] = 197 tokens (`sequence` > 0 sets the token count).
ModelSpec buildVitBase(const std::string& name, int sequence);
// VGG19 (configuration E) on `side`×`side` images with `classes` outputs; one sample is one image. As in
// torchvision, an adaptive average pool brings the last feature map to 7×7, so the classifier is 512·7·7 →
// 4096 → 4096 → classes whatever the side (HAP trains it on 32×32 CIFAR-10: 1×1 maps copied to 7×7).
ModelSpec buildVgg19(const std::string& name, int side = 224, int classes = 1000);
// AMP's modified TransGAN generator, 56 layers; `sequence` is ignored (the token grid is fixed).
ModelSpec buildTransGanAmp(const std::string& name, int sequence);

} // namespace hetplan
