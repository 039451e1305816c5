#include "sha256.h"

#include "sha256stream.h"

#include <QFile>

namespace ddl {

Result<QString> sha256OfFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::make(ErrorCode::IoError,
                           QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    Sha256Stream hash;
    QByteArray buffer(1 << 20, Qt::Uninitialized);
    for (;;) {
        const qint64 n = file.read(buffer.data(), buffer.size());
        if (n < 0)
            return Error::make(ErrorCode::IoError,
                               QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
        if (n == 0)
            break;
        hash.add(QByteArrayView(buffer.constData(), n));
    }
    return hash.finishHex();
}

bool isSha256Hex(const QString &text)
{
    if (text.size() != 64)
        return false;
    for (const QChar c : text) {
        if (!((c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f')))
            return false;
    }
    return true;
}

} // namespace ddl
