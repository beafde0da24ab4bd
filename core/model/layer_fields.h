#pragma once
// A layer's scalar fields, declared once: the model JSON reader and writer and ModelSpec::validate loop over
// this table. Not in it: the name (free text) and the matmul work list (an array), which the reader handles.
#include "core/base/fields.h"
#include "model.h"

namespace hetplan {

const std::vector<FieldSpec<LayerSpec>>& layerFields();

} // namespace hetplan
