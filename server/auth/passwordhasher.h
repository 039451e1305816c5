#pragma once

#include <QString>

namespace ddl::server {

// Argon2id password hashes (libsodium's crypto_pwhash_str, interactive limits).
class PasswordHasher
{
public:
    static QString hash(const QString &password);
    static bool verify(const QString &password, const QString &storedHash);
};

} // namespace ddl::server
