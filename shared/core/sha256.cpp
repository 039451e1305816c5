#include "sha256.h"

#include <QFile>

namespace ddl {

Result<QString> sha256OfFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error::make(QStringLiteral("io_error"),
                           QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&file))
        return Error::make(QStringLiteral("io_error"),
                           QStringLiteral("cannot read %1: %2").arg(path, file.errorString()));
    return QString::fromLatin1(hash.result().toHex());
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
