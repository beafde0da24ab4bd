#pragma once
// The device catalog's JSON form (hetplan.devices/1, the format of resources/devices.json). It lives with
// the model because the built-in catalog is that JSON compiled into the binary, and the model needs it
// (a node's default intra-node bandwidth comes from its device type).
#include "core/model/device.h"

#include <QJsonObject>
#include <string>

namespace hetplan {

QJsonObject toJson(const DeviceType& d);
DeviceType deviceFromJson(const QJsonObject& o, const std::string& file, const std::string& path);
// A whole catalog. Rejects a name or alias that two devices share (ignoring case and separators), since
// lookups by it would be ambiguous.
QJsonObject toJson(const DeviceCatalog& c);
DeviceCatalog catalogFromJson(const QJsonObject& o, const std::string& file);

} // namespace hetplan
