#pragma once

#include "core/result.h"

#include <QSslCertificate>
#include <QSslKey>

namespace ddl::server {

// The server's TLS identity: a given certificate and key, or a self-signed pair made once in
// DATA/tls/ (EC P-256, names localhost, 127.0.0.1, ::1 and the host name).
struct TlsIdentity
{
    QSslCertificate certificate;
    QSslKey key;
    // The certificates after the first in its file (intermediate CAs), sent with it: a client
    // that trusts only the root can verify the server.
    QList<QSslCertificate> intermediates;
    QString certificatePath;
};

class CertificateMaker
{
public:
    static Result<TlsIdentity> loadOrCreate(const QString &dataDir, const QString &certPath,
                                            const QString &keyPath);

private:
    static Status createSelfSigned(const QString &certPath, const QString &keyPath);
};

} // namespace ddl::server
