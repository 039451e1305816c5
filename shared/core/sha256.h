#pragma once

#include "result.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QString>

namespace ddl {

// Streaming SHA-256 of a file in bounded memory. Returns the lowercase hex digest.
Result<QString> sha256OfFile(const QString &path);

// True when text is 64 lowercase hex characters, the only digest form the wire accepts.
bool isSha256Hex(const QString &text);

} // namespace ddl
