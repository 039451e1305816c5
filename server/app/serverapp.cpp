#include "serverapp.h"

#include "blobs/blobbatch.h"
#include "front/frontserver.h"
#include "front/router.h"
#include "http/authcontroller.h"
#include "http/blobcontroller.h"
#include "http/checkpointcontroller.h"
#include "http/datasetcontroller.h"
#include "http/imagecontroller.h"
#include "http/jobcontroller.h"
#include "http/ledgercontroller.h"
#include "http/uploadcontroller.h"
#include "http/workercontroller.h"
#include "scheduler/leadership.h"
#include "serverservices.h"
#include "store/database.h"
#include "store/databaseurl.h"
#include "tls/certificatemaker.h"

#include <QLoggingCategory>
#include <QSslConfiguration>

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
    Result<QSqlDatabase> db =
        Database::open(m_config.dataDir, QStringLiteral("ddl-server"), m_config.database);
    if (!db)
        return db.error();
    UtilisationLimits limits;
    limits.samplesPerTask = m_config.utilisationSamplesPerTask;
    limits.samplesPerWorker = m_config.utilisationSamplesPerWorker;
    m_services =
        std::make_unique<ServerServices>(*db, m_config.dataDir, m_config.maxBlobBytes, limits);
    m_services->checkpoints.setMaxBytes(m_config.checkpointMaxBytes);
    m_services->scheduler.setCheckpointMaxBytes(m_config.checkpointMaxBytes);
    for (Status prepared : {m_services->blobs.prepare(), m_services->logs.prepare()}) {
        if (!prepared)
            return prepared;
    }
    BlobBatch::sweepParts(m_services->blobs);
    m_services->uploads.sweepUnreferencedPacks();
    m_services->scheduler.setCanaries(m_config.canaries);
    m_services->canaries.setIntervalMs(qint64(m_config.canaryIntervalHours * 3600 * 1000));
    m_services->canaries.setDeadlineMs(qint64(m_config.canaryDeadlineMinutes * 60 * 1000));
    // On PostgreSQL other servers may share the store: the scheduler runs where the lock is.
    if (m_config.database.isEmpty()) {
        if (Status loaded = m_services->scheduler.load(); !loaded)
            return loaded;
    } else {
        m_leadership = std::make_unique<Leadership>(m_config.database, m_services->scheduler);
        if (Status started = m_leadership->start(); !started)
            return started;
    }

    Result<TlsIdentity> identity = CertificateMaker::loadOrCreate(m_config.dataDir,
                                                                  m_config.tlsCert,
                                                                  m_config.tlsKey);
    if (!identity)
        return identity.error();
    QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
    ssl.setLocalCertificateChain(QList<QSslCertificate>{identity->certificate} +
                                 identity->intermediates);
    ssl.setPrivateKey(identity->key);
    ssl.setProtocol(QSsl::TlsV1_2OrLater);
    ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    registerRoutes();
    m_front = std::make_unique<FrontServer>(*m_router);
    m_front->setSslConfiguration(ssl);
    if (!m_front->listen(m_config.listenAddress, m_config.listenPort)) {
        return Error::make(ErrorCode::ListenFailed,
                           QStringLiteral("cannot listen on %1:%2: %3; pick another --listen")
                               .arg(m_config.listenAddress.toString())
                               .arg(m_config.listenPort)
                               .arg(m_front->errorString()));
    }

    connect(&m_housekeeping, &QTimer::timeout, this, &ServerApp::handleHousekeeping);
    m_housekeeping.start(2000);

    const QString fingerprint = QString::fromLatin1(
        identity->certificate.digest(QCryptographicHash::Sha256).toHex(':').toUpper());
    qCInfo(lcServer).noquote() << "TLS certificate" << identity->certificatePath
                               << QStringLiteral("fingerprint SHA256:") + fingerprint;
    QString host = m_config.listenAddress.toString();
    if (m_config.listenAddress.protocol() == QAbstractSocket::IPv6Protocol)
        host = u'[' + host + u']';
    qCInfo(lcServer).noquote() << "store:"
                               << (m_config.database.isEmpty()
                                       ? QStringLiteral("SQLite in ") + m_config.dataDir
                                       : DatabaseUrl::redacted(m_config.database));
    qCInfo(lcServer).noquote() << "ddl-server " DDL_VERSION " listening on"
                               << QStringLiteral("https://%1:%2").arg(host).arg(port());
    return Ok{};
}

void ServerApp::registerRoutes()
{
    ServerServices &s = *m_services;
    m_router = std::make_unique<Router>(RequestAuth(s.auth, s.workers));
    m_router->route("GET", "/v1/version", Access::Anyone, [](const HttpRequest &) {
        return HttpReply::json({{QStringLiteral("server"), QStringLiteral(DDL_VERSION)},
                                {QStringLiteral("api"), 1}});
    });
    m_authController = std::make_unique<AuthController>(s.auth, s.throttle);
    m_jobController =
        std::make_unique<JobController>(s.jobs, s.outputs, s.logs, s.uploads.locator(),
                                        s.utilisation);
    m_uploadController = std::make_unique<UploadController>(s.uploads);
    m_blobController = std::make_unique<BlobController>(s.uploads.locator(), s.uploads,
                                                        s.workers, s.ledger);
    m_workerController =
        std::make_unique<WorkerController>(s.workers, s.scheduler, s.logs, s.utilisation,
                                           s.ledger);
    m_ledgerController = std::make_unique<LedgerController>(s.ledger);
    m_datasetController = std::make_unique<DatasetController>(s.datasets);
    m_imageController = std::make_unique<ImageController>(s.images);
    m_checkpointController = std::make_unique<CheckpointController>(s.checkpoints);
    m_authController->registerRoutes(*m_router);
    m_jobController->registerRoutes(*m_router);
    m_uploadController->registerRoutes(*m_router);
    m_blobController->registerRoutes(*m_router);
    m_workerController->registerRoutes(*m_router);
    m_ledgerController->registerRoutes(*m_router);
    m_datasetController->registerRoutes(*m_router);
    m_imageController->registerRoutes(*m_router);
    m_checkpointController->registerRoutes(*m_router);
}

void ServerApp::handleHousekeeping()
{
    // One server judges workers lost (the scheduler's leader, by its clock), not every one.
    if (m_services->scheduler.leading())
        m_services->workers.markLostWorkers(qint64(m_config.workerTimeoutSeconds) * 1000);
    // Canaries (docs/trust.md): judged and started by the server that places them.
    if (m_config.canaries && m_services->scheduler.leading())
        m_services->canaries.tick();
    // Limits change from `ddl-server user limits` in another process; reasons age.
    m_services->scheduler.requestPass();
    // Abandoned uploads are rare and old: look for them every ten minutes.
    if (m_housekeepingRounds % 300 == 0) {
        m_services->uploads.expireAbandoned();
        m_services->utilisation.purgeOldSamples();
    }
    // Packs no blob refers to (start looked at them all): each hour, those of the hours since,
    // each looked at twice (a pack counts once over an hour old).
    if (m_housekeepingRounds > 0 && m_housekeepingRounds % 1800 == 0) {
        m_services->uploads.sweepUnreferencedPacks(
            QDateTime::currentDateTimeUtc().addSecs(-3 * 3600));
    }
    ++m_housekeepingRounds;
}

} // namespace ddl::server
