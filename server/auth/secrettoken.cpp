#include "secrettoken.h"

#include <QCryptographicHash>
#include <sodium.h>

namespace ddl::server {

QString SecretToken::generate(const QString &prefix)
{
    static const bool ready = sodium_init() >= 0;
    Q_UNUSED(ready);
    QByteArray bytes(32, Qt::Uninitialized);
    randombytes_buf(bytes.data(), size_t(bytes.size()));
    return prefix
           + QString::fromLatin1(
               bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

QString SecretToken::hashOf(const QString &token)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(token.toUtf8(), QCryptographicHash::Sha256).toHex());
}

} // namespace ddl::server
