#include "certificatemaker.h"

#include <QDir>
#include <QFile>
#include <QHostInfo>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace ddl::server {

static Error tlsError(const QString &what)
{
    return Error::make(ErrorCode::TlsError, what);
}

// Whether the private key in keyPem is the one of the certificate in certPem (the first of it).
static bool keyFitsCertificate(const QByteArray &certPem, const QByteArray &keyPem)
{
    std::unique_ptr<BIO, decltype(&BIO_free)> certBio(
        BIO_new_mem_buf(certPem.constData(), int(certPem.size())), BIO_free);
    std::unique_ptr<BIO, decltype(&BIO_free)> keyBio(
        BIO_new_mem_buf(keyPem.constData(), int(keyPem.size())), BIO_free);
    if (!certBio || !keyBio)
        return false;
    std::unique_ptr<X509, decltype(&X509_free)> certificate(
        PEM_read_bio_X509(certBio.get(), nullptr, nullptr, nullptr), X509_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        PEM_read_bio_PrivateKey(keyBio.get(), nullptr, nullptr, const_cast<char *>("")),
        EVP_PKEY_free); // "": an empty passphrase, never a prompt on the terminal
    return certificate && key && X509_check_private_key(certificate.get(), key.get()) == 1;
}

static Result<QByteArray> readFile(const QString &path, const QString &what)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return tlsError(QStringLiteral("cannot read the TLS %1 %2: %3")
                            .arg(what, path, file.errorString()));
    }
    return file.readAll();
}

Result<TlsIdentity> CertificateMaker::loadOrCreate(const QString &dataDir, const QString &certPath,
                                                   const QString &keyPath)
{
    QString cert = certPath;
    QString key = keyPath;
    if (cert.isEmpty() != key.isEmpty())
        return tlsError(QStringLiteral("give both --tls-cert and --tls-key, or neither"));
    if (cert.isEmpty()) {
        const QDir tlsDir(QDir(dataDir).filePath(QStringLiteral("tls")));
        cert = tlsDir.filePath(QStringLiteral("server.crt"));
        key = tlsDir.filePath(QStringLiteral("server.key"));
        if (!QFile::exists(cert) || !QFile::exists(key)) {
            QDir().mkpath(tlsDir.path());
            QFile::remove(key); // a key without its certificate is of no use
            if (Status made = createSelfSigned(cert, key); !made)
                return made.error();
        }
    }
    Result<QByteArray> certPem = readFile(cert, QStringLiteral("certificate"));
    if (!certPem)
        return certPem.error();
    Result<QByteArray> keyPem = readFile(key, QStringLiteral("key"));
    if (!keyPem)
        return keyPem.error();
    TlsIdentity identity;
    identity.certificatePath = cert;
    const QList<QSslCertificate> chain = QSslCertificate::fromData(*certPem, QSsl::Pem);
    if (chain.isEmpty())
        return tlsError(QStringLiteral("%1 holds no PEM certificate").arg(cert));
    identity.certificate = chain.first();
    identity.intermediates = chain.mid(1);
    for (QSsl::KeyAlgorithm algorithm : {QSsl::Ec, QSsl::Rsa}) {
        identity.key = QSslKey(*keyPem, algorithm, QSsl::Pem);
        if (!identity.key.isNull())
            break;
    }
    if (identity.key.isNull())
        return tlsError(QStringLiteral("%1 holds no PEM EC or RSA private key").arg(key));
    // Else the server would start and every handshake fail, far from the cause.
    if (!keyFitsCertificate(*certPem, *keyPem)) {
        ERR_clear_error();
        return tlsError(
            QStringLiteral("the key %1 is not the key of the certificate %2 (the first "
                           "one of the file); give the key the certificate was made for")
                .arg(key, cert));
    }
    return identity;
}

Status CertificateMaker::createSelfSigned(const QString &certPath, const QString &keyPath)
{
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(EVP_EC_gen("P-256"), EVP_PKEY_free);
    std::unique_ptr<X509, decltype(&X509_free)> x509(X509_new(), X509_free);
    if (!pkey || !x509)
        return tlsError(QStringLiteral("OpenSSL could not make a key pair"));
    X509_set_version(x509.get(), 2);
    unsigned char serial[16];
    EVP_Digest(certPath.toUtf8().constData(), size_t(certPath.toUtf8().size()), serial, nullptr,
               EVP_md5(), nullptr);
    BIGNUM *serialNumber = BN_bin2bn(serial, sizeof serial, nullptr);
    BN_to_ASN1_INTEGER(serialNumber, X509_get_serialNumber(x509.get()));
    BN_free(serialNumber);
    X509_gmtime_adj(X509_getm_notBefore(x509.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x509.get()), 10L * 365 * 24 * 3600);
    X509_set_pubkey(x509.get(), pkey.get());
    X509_NAME *name = X509_get_subject_name(x509.get());
    const QByteArray host = QHostInfo::localHostName().toUtf8();
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char *>("DDL"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char *>(host.constData()), -1, -1,
                               0);
    X509_set_issuer_name(x509.get(), name);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, x509.get(), x509.get(), nullptr, nullptr, 0);
    const QByteArray san = "DNS:localhost,IP:127.0.0.1,IP:::1,DNS:" + host;
    for (const auto &[nid, value] : {std::pair{NID_subject_alt_name, san},
                                     std::pair{NID_basic_constraints, QByteArray("critical,CA:TRUE")},
                                     std::pair{NID_key_usage,
                                               QByteArray("critical,digitalSignature,keyCertSign")},
                                     std::pair{NID_ext_key_usage, QByteArray("serverAuth")}}) {
        X509_EXTENSION *extension = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.constData());
        if (!extension)
            return tlsError(QStringLiteral("OpenSSL rejected a certificate extension"));
        X509_add_ext(x509.get(), extension, -1);
        X509_EXTENSION_free(extension);
    }
    if (X509_sign(x509.get(), pkey.get(), EVP_sha256()) == 0)
        return tlsError(QStringLiteral("OpenSSL could not sign the certificate"));

    // The key is written 0600 from its first byte on.
    const QByteArray keyFile = QFile::encodeName(keyPath);
    FILE *keyOut = fopen(keyFile.constData(), "wx");
    if (!keyOut)
        return tlsError(QStringLiteral("cannot write %1").arg(keyPath));
    QFile::setPermissions(keyPath, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const bool keyWritten = PEM_write_PrivateKey(keyOut, pkey.get(), nullptr, nullptr, 0, nullptr,
                                                 nullptr)
                            == 1;
    fclose(keyOut);
    FILE *certOut = fopen(QFile::encodeName(certPath).constData(), "w");
    if (!certOut)
        return tlsError(QStringLiteral("cannot write %1").arg(certPath));
    const bool certWritten = PEM_write_X509(certOut, x509.get()) == 1;
    fclose(certOut);
    if (!keyWritten || !certWritten)
        return tlsError(QStringLiteral("cannot write the TLS files in %1").arg(certPath));
    return Ok{};
}

} // namespace ddl::server
