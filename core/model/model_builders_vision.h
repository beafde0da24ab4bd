#pragma once
// Example-model builders for the image models (internal to core/model; model_builders.cpp registers them).
#include "model.h"

#include <string>

namespace hetplan {

// ViT-B/16 at 224×224: 196 patches + [CLS] = 197 tokens (`sequence` > 0 sets the token count).
ModelSpec buildVitBase(const std::string& name, int sequence);
// VGG19 (configuration E) on 224×224 ImageNet images; one sample is one image, `sequence` is ignored.
ModelSpec buildVgg19(const std::string& name, int sequence);
// AMP's modified TransGAN generator, 56 layers; `sequence` is ignored (the token grid is fixed).
ModelSpec buildTransGanAmp(const std::string& name, int sequence);

} // namespace hetplan
