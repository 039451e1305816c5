#pragma once

#include <QString>

namespace ddl::server {

// Bearer tokens: 32 random bytes, base64url; only their SHA-256 is ever stored.
class SecretToken
{
public:
    static QString generate(const QString &prefix);
    static QString hashOf(const QString &token);
};

} // namespace ddl::server
