#include "serverapp.h"

#include "front/datarouter.h"
#include "front/frontserver.h"
#include "http/authcontroller.h"
#include "http/datasetcontroller.h"
#include "http/httpreply.h"
#include "http/jobcontroller.h"
#include "http/uploadcontroller.h"
#include "http/workercontroller.h"
#include "servercontext.h"
#include "store/database.h"
#include "tls/certificatemaker.h"

#include <QLoggingCategory>
#include <QMetaEnum>
#include <QSslConfiguration>
#include <QTcpSocket>

Q_LOGGING_CATEGORY(lcServer, "ddl.server")

namespace ddl::server {

ServerApp::ServerApp(const ServerConfig &config, QObject *parent)
    : QObject(parent)
    , m_config(config)
{}

ServerApp::~ServerApp() = default;

quint16 ServerApp::port() const
{
    return m_front ? m_front->serverPort() : 0;
}

Status ServerApp::start()
{
    Result<QSqlDatabase> db = Database::open(m_config.dataDir, QStringLiteral("ddl-server"));
    if (!db)
        return db.error();
    m_context = std::make_unique<ServerContext>(*db, m_config.dataDir, m_config.maxBlobBytes);
    for (Status prepared : {m_context->blobs.prepare(), m_context->logs.prepare(),
                            m_context->scheduler.load()}) {
        if (!prepared)
            return prepared;
    }

    Result<TlsIdentity> identity = CertificateMaker::loadOrCreate(m_config.dataDir,
                                                                  m_config.tlsCert,
                                                                  m_config.tlsKey);
    if (!identity)
        return identity.error();
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setLocalCertificate(identity->certificate);
    ssl.setPrivateKey(identity->key);
    ssl.setProtocol(QSsl::TlsV1_2OrLater);
    ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    m_dataRouter = std::make_unique<DataRouter>(*m_context);
    m_front = std::make_unique<FrontServer>(*m_dataRouter);
    m_front->setSslConfiguration(ssl);
    if (!m_front->listen(m_config.listenAddress, m_config.listenPort)) {
        return Error::make(ErrorCode::ListenFailed,
                           QStringLiteral("cannot listen on %1:%2: %3; pick another --listen")
                               .arg(m_config.listenAddress.toString())
                               .arg(m_config.listenPort)
                               .arg(m_front->errorString()));
    }
    registerRoutes();
    // One port: the front streams the data plane and hands the rest to QtHttpServer.
    m_http.bind(m_front.get());

    connect(&m_housekeeping, &QTimer::timeout, this, &ServerApp::handleHousekeeping);
    m_housekeeping.start(2000);

    const QString fingerprint = QString::fromLatin1(
        identity->certificate.digest(QCryptographicHash::Sha256).toHex(':').toUpper());
    qCInfo(lcServer).noquote() << "TLS certificate" << identity->certificatePath
                               << QStringLiteral("fingerprint SHA256:") + fingerprint;
    QString host = m_config.listenAddress.toString();
    if (m_config.listenAddress.protocol() == QAbstractSocket::IPv6Protocol)
        host = u'[' + host + u']';
    qCInfo(lcServer).noquote() << "ddl-server " DDL_VERSION " listening on"
                               << QStringLiteral("https://%1:%2").arg(host).arg(port());
    return Ok{};
}

void ServerApp::registerRoutes()
{
    m_http.route(QStringLiteral("/v1/version"), QHttpServerRequest::Method::Get, [] {
        return HttpReply::json({{QStringLiteral("server"), QStringLiteral(DDL_VERSION)},
                                {QStringLiteral("api"), 1}});
    });
    m_authController = std::make_unique<AuthController>(*m_context);
    m_jobController = std::make_unique<JobController>(*m_context);
    m_uploadController = std::make_unique<UploadController>(*m_context);
    m_workerController = std::make_unique<WorkerController>(*m_context);
    m_datasetController = std::make_unique<DatasetController>(*m_context);
    m_authController->registerRoutes(m_http);
    m_jobController->registerRoutes(m_http);
    m_uploadController->registerRoutes(m_http);
    m_workerController->registerRoutes(m_http);
    m_datasetController->registerRoutes(m_http);
    m_http.setMissingHandler(
        [](const QHttpServerRequest &request, QHttpServerResponder &&responder) {
            const QHttpServerResponse response = HttpReply::error(Error::make(
                ErrorCode::NotFound,
                QStringLiteral("no such endpoint: %1 %2; see docs/api.md")
                    .arg(QString::fromLatin1(QMetaEnum::fromType<QHttpServerRequest::Method>()
                                                 .valueToKey(int(request.method())))
                             .toUpper(),
                         request.url().path())));
            response.write(std::move(responder));
        });
}

void ServerApp::handleHousekeeping()
{
    m_context->workers.markLostWorkers(qint64(m_config.workerTimeoutSeconds) * 1000);
    // Limits change from `ddl-server user limits` in another process; reasons age.
    m_context->scheduler.reloadLimits();
    m_context->scheduler.requestPass();
    // Abandoned uploads are rare and old: look for them every ten minutes.
    if (m_housekeepingRounds++ % 300 == 0)
        m_context->uploads.expireAbandoned();
}

} // namespace ddl::server
