#include "sha256stream.h"

// SHA256_CTX is a plain struct that can be copied and saved; the EVP interface cannot.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <cstring>

namespace ddl {

static_assert(sizeof(SHA256_CTX) <= 128, "Sha256Stream::m_context is too small");

static SHA256_CTX *context(unsigned char *storage)
{
    return reinterpret_cast<SHA256_CTX *>(storage);
}

Sha256Stream::Sha256Stream()
{
    std::memset(m_context, 0, sizeof m_context);
    SHA256_Init(context(m_context));
}

void Sha256Stream::add(QByteArrayView bytes)
{
    if (!bytes.isEmpty())
        SHA256_Update(context(m_context), bytes.data(), size_t(bytes.size()));
}

QString Sha256Stream::finishHex()
{
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256_Final(digest, context(m_context));
    return QString::fromLatin1(
        QByteArray(reinterpret_cast<const char *>(digest), SHA256_DIGEST_LENGTH).toHex());
}

QByteArray Sha256Stream::saveState() const
{
    return QByteArray(reinterpret_cast<const char *>(m_context), sizeof(SHA256_CTX));
}

std::optional<Sha256Stream> Sha256Stream::restoreState(QByteArrayView state)
{
    if (state.size() != qsizetype(sizeof(SHA256_CTX)))
        return std::nullopt;
    Sha256Stream stream;
    std::memcpy(stream.m_context, state.data(), sizeof(SHA256_CTX));
    // A state with a partial block longer than a block was not written by saveState().
    if (context(stream.m_context)->num >= SHA256_CBLOCK)
        return std::nullopt;
    return stream;
}

} // namespace ddl
