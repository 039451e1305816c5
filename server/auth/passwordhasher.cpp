#include "passwordhasher.h"

#include <sodium.h>

namespace ddl::server {

static void ensureSodium()
{
    static const bool ready = sodium_init() >= 0;
    Q_ASSERT(ready);
}

QString PasswordHasher::hash(const QString &password)
{
    ensureSodium();
    const QByteArray utf8 = password.toUtf8();
    char out[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str_alg(out, utf8.constData(), quint64(utf8.size()),
                              crypto_pwhash_OPSLIMIT_INTERACTIVE,
                              crypto_pwhash_MEMLIMIT_INTERACTIVE, crypto_pwhash_ALG_ARGON2ID13)
        != 0)
        return {};
    return QString::fromLatin1(out);
}

bool PasswordHasher::verify(const QString &password, const QString &storedHash)
{
    ensureSodium();
    const QByteArray utf8 = password.toUtf8();
    const QByteArray stored = storedHash.toLatin1();
    return crypto_pwhash_str_verify(stored.constData(), utf8.constData(), quint64(utf8.size()))
           == 0;
}

} // namespace ddl::server
