// The server's TLS identity when the operator gives one (--tls-cert, --tls-key), as a CA issues
// it: a certificate signed by an intermediate CA, the file holding both. The real ddl-server and
// ddlcli processes, and a certificate chain made by the openssl command in a temp dir.
#include "serverprocess.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class tst_TlsIdentity : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void clientsThatTrustOnlyTheRootConnect();
    void keyOfAnotherCertificateStopsTheStart();

private:
    // Runs `openssl args` in the temp dir; its error output when it failed.
    QString openssl(const QStringList &args);
    QString path(const QString &name) const { return m_dir.filePath(name); }
    bool writeFile(const QString &name, const QByteArray &bytes);
    // ddlcli with the root CA as its only trust; its exit code, its output in *output.
    int
    ddlcli(const QUrl &server, const QStringList &args, const QByteArray &input, QString *output);

    QTemporaryDir m_dir;
};

QString tst_TlsIdentity::openssl(const QStringList &args)
{
    QProcess process;
    process.setWorkingDirectory(m_dir.path());
    process.start(u"openssl"_s, args);
    if (!process.waitForFinished(30000) || process.exitCode() != 0)
        return u"openssl %1: %2"_s.arg(args.join(u' '),
                                       QString::fromLocal8Bit(process.readAllStandardError()));
    return {};
}

bool tst_TlsIdentity::writeFile(const QString &name, const QByteArray &bytes)
{
    QFile file(path(name));
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

int tst_TlsIdentity::ddlcli(const QUrl &server,
                            const QStringList &args,
                            const QByteArray &input,
                            QString *output)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"XDG_CONFIG_HOME"_s, path(u"cli-config"_s));
    env.insert(u"XDG_CACHE_HOME"_s, path(u"cli-cache"_s));
    env.insert(u"DDL_SERVER"_s, server.toString());
    env.insert(u"DDL_CA_CERT"_s, path(u"root.crt"_s));
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(ServerProcess::binary(u"ddlcli"_s), args);
    process.write(input);
    process.closeWriteChannel();
    process.waitForFinished(60000);
    *output = QString::fromLocal8Bit(process.readAll());
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

void tst_TlsIdentity::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(writeFile(
        u"ca.ext"_s, "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"));
    QVERIFY(writeFile(u"leaf.ext"_s,
                      "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                      "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n"));
    const QStringList newKey{
        u"-newkey"_s, u"ec"_s, u"-pkeyopt"_s, u"ec_paramgen_curve:P-256"_s, u"-nodes"_s};
    QString failed = openssl(QStringList{u"req"_s, u"-x509"_s} + newKey +
                             QStringList{u"-keyout"_s,
                                         u"root.key"_s,
                                         u"-out"_s,
                                         u"root.crt"_s,
                                         u"-subj"_s,
                                         u"/CN=DDL Test Root"_s,
                                         u"-days"_s,
                                         u"2"_s,
                                         u"-addext"_s,
                                         u"basicConstraints=critical,CA:TRUE"_s,
                                         u"-addext"_s,
                                         u"keyUsage=critical,keyCertSign,cRLSign"_s});
    QVERIFY2(failed.isEmpty(), qPrintable(failed));
    // The intermediate, signed by the root; the server's certificate, signed by the intermediate.
    for (const auto &[name, issuer, subject, ext] :
         {std::tuple{u"intermediate"_s, u"root"_s, u"/CN=DDL Test Intermediate"_s, u"ca.ext"_s},
          std::tuple{u"leaf"_s, u"intermediate"_s, u"/CN=127.0.0.1"_s, u"leaf.ext"_s}}) {
        failed = openssl(
            QStringList{u"req"_s, u"-new"_s} + newKey +
            QStringList{
                u"-keyout"_s, name + u".key"_s, u"-out"_s, name + u".csr"_s, u"-subj"_s, subject});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        failed = openssl({u"x509"_s,
                          u"-req"_s,
                          u"-in"_s,
                          name + u".csr"_s,
                          u"-CA"_s,
                          issuer + u".crt"_s,
                          u"-CAkey"_s,
                          issuer + u".key"_s,
                          u"-CAcreateserial"_s,
                          u"-days"_s,
                          u"2"_s,
                          u"-extfile"_s,
                          ext,
                          u"-out"_s,
                          name + u".crt"_s});
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
    }
    // As a CA hands it over: the server's certificate first, then the intermediate.
    QFile leaf(path(u"leaf.crt"_s));
    QFile intermediate(path(u"intermediate.crt"_s));
    QVERIFY(leaf.open(QIODevice::ReadOnly) && intermediate.open(QIODevice::ReadOnly));
    QVERIFY(writeFile(u"chain.crt"_s, leaf.readAll() + intermediate.readAll()));
}

void tst_TlsIdentity::clientsThatTrustOnlyTheRootConnect()
{
    ServerProcess server(path(u"data-chain"_s));
    const QString started = server.start(
        0, {u"--tls-cert"_s, path(u"chain.crt"_s), u"--tls-key"_s, path(u"leaf.key"_s)});
    QVERIFY2(started.isEmpty(), qPrintable(started));

    // A TLS client that trusts the root alone verifies the server: the intermediate comes with
    // the server's certificate.
    QSslSocket socket;
    QSslConfiguration trust = socket.sslConfiguration();
    trust.setCaCertificates(QSslCertificate::fromPath(path(u"root.crt"_s)));
    socket.setSslConfiguration(trust);
    socket.connectToHostEncrypted(u"127.0.0.1"_s, server.port());
    QVERIFY2(socket.waitForEncrypted(10000),
             qPrintable(socket.errorString() + u"; server log:\n"_s + server.log()));
    const QList<QSslCertificate> chain = socket.peerCertificateChain();
    QCOMPARE(chain.size(), 2);
    QCOMPARE(chain.at(1).subjectInfo(QSslCertificate::CommonName),
             QStringList{u"DDL Test Intermediate"_s});
    socket.disconnectFromHost();

    // The user's client: the control requests (register, login) and the data plane (an
    // upload, on its own OpenSSL connection) both verify it.
    QString output;
    QCOMPARE(ddlcli(server.url(),
                    {u"register"_s},
                    "dana@example.org\ncorrect horse 7\n"
                    "correct horse 7\n",
                    &output),
             0);
    QCOMPARE(ddlcli(server.url(), {u"login"_s}, "dana@example.org\ncorrect horse 7\n", &output), 0);
    QVERIFY(QDir().mkpath(path(u"dataset"_s)));
    QVERIFY(writeFile(u"dataset/train.csv"_s, QByteArray(300 * 1024, 'x')));
    const int uploaded =
        ddlcli(server.url(),
               {u"dataset"_s, u"upload"_s, path(u"dataset"_s), u"--name"_s, u"chained"_s},
               {},
               &output);
    QVERIFY2(uploaded == 0, qPrintable(output));
}

void tst_TlsIdentity::keyOfAnotherCertificateStopsTheStart()
{
    // The intermediate's key beside the server's certificate: a slip an operator makes.
    ServerProcess server(path(u"data-wrongkey"_s));
    const QString started = server.start(
        0, {u"--tls-cert"_s, path(u"chain.crt"_s), u"--tls-key"_s, path(u"intermediate.key"_s)});
    QVERIFY2(!started.isEmpty(), "the server started with a key that is not its certificate's");
    QVERIFY2(started.contains(u"is not the key of the certificate"_s), qPrintable(started));
    QVERIFY2(started.contains(path(u"intermediate.key"_s)), qPrintable(started));
}

QTEST_GUILESS_MAIN(tst_TlsIdentity)
#include "tst_tlsidentity.moc"
