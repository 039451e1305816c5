#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <optional>

namespace ddl {

// Incremental SHA-256 on OpenSSL's implementation (it uses the CPU's SHA extensions, several
// times faster than QCryptographicHash). Its state can be saved and restored, so an upload that
// resumes after a restart goes on hashing where it stopped instead of reading its prefix again.
class Sha256Stream
{
public:
    Sha256Stream();

    void add(QByteArrayView bytes);
    // The lowercase hex digest; the stream must not be used afterwards.
    QString finishHex();

    QByteArray saveState() const;
    static std::optional<Sha256Stream> restoreState(QByteArrayView state);

private:
    // Room for OpenSSL's SHA256_CTX (112 bytes), kept opaque so no header leaks OpenSSL.
    alignas(8) unsigned char m_context[128];
};

} // namespace ddl
