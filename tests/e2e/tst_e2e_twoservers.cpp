// Two ddl-server processes on one PostgreSQL database and one data folder, as an operator runs
// them for availability: a real PostgreSQL cluster (PgCluster), a real ddl-worker talking only to
// the server that does not lead, jobs submitted to both. Only one server places tasks (the
// scheduler lock); every task runs once; SIGKILL the leader and the other leads within 10 s, and
// every job either server accepted finishes. Also: servers starting at once on a fresh database
// migrate it once, and the database URL's password is in no log or error.
#include "httpsclient.h"
#include "pgcluster.h"
#include "polluntil.h"
#include "serverprocess.h"
#include "serveruser.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {

const QString Leads = u"this server now leads the scheduler"_s;

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject parse(const QByteArray &bytes)
{
    return QJsonDocument::fromJson(bytes).object();
}

} // namespace

class tst_E2eTwoServers : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void twoServersShareTheWorkAndSurviveTheLeadersDeath();
    void socketUrlWorksAndAWrongPasswordIsNotShown();
    void serversStartingAtOnceMigrateAFreshDatabaseOnce();

private:
    // Submits a job of two tasks through server; its uuid, or empty (with a warning).
    QString submit(HttpsClient &server, int serial);

    QTemporaryDir m_dir;
    PgCluster m_postgres;
    QString m_dataDir;
    std::unique_ptr<ServerProcess> m_first;
    std::unique_ptr<ServerProcess> m_second;
    std::unique_ptr<QProcess> m_worker;
    QList<QSslCertificate> m_ca;
    QByteArray m_token;
};

void tst_E2eTwoServers::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString started = m_postgres.start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    const QString url = m_postgres.createDatabase(u"twoservers"_s);
    QVERIFY(!url.isEmpty());
    m_dataDir = m_dir.filePath(u"data"_s);
    ServerProcess::useDatabase(m_dataDir, url);
    m_first = std::make_unique<ServerProcess>(m_dataDir, m_dir.filePath(u"first.log"_s));
    m_second = std::make_unique<ServerProcess>(m_dataDir, m_dir.filePath(u"second.log"_s));
    // The first makes the certificate and the schema, and leads; the second finds both.
    QString failed = m_first->start();
    QVERIFY2(failed.isEmpty(), qPrintable(failed));
    QVERIFY2(pollUntil([&] { return m_first->log().contains(Leads); }, 10000),
             qPrintable(m_first->log()));
    failed = m_second->start();
    QVERIFY2(failed.isEmpty(), qPrintable(failed));
    // The password of the database URL is in no log.
    for (const ServerProcess *server : {m_first.get(), m_second.get()}) {
        QVERIFY(server->log().contains(u"store: postgresql://"_s));
        QVERIFY2(!server->log().contains(m_postgres.password()), qPrintable(server->log()));
    }
    m_ca = QSslCertificate::fromPath(m_first->caFile());
    QVERIFY(!m_ca.isEmpty());

    HttpsClient first(m_first->port(), m_ca);
    const QJsonObject credentials{{u"email"_s, u"ha@example.org"_s},
                                  {u"password"_s, u"ha-password-1"_s}};
    HttpsClient::Answer answer = first.call("POST", "/v1/auth/register", {}, json(credentials));
    QVERIFY2(answer.status == 201, answer.body.constData());
    // Logged in at the second: users and sessions are the database's, not a server's.
    HttpsClient second(m_second->port(), m_ca);
    answer = second.call("POST", "/v1/auth/login", {}, json(credentials));
    QVERIFY2(answer.status == 200, answer.body.constData());
    m_token = parse(answer.body).value(u"access_token"_s).toString().toLatin1();
    QVERIFY(!m_token.isEmpty());

    // The worker knows only the second server, which does not lead: its leases come from the
    // store, placed there by the first.
    const QString enrollToken = ServerProcess::createEnrollToken(m_dataDir);
    QVERIFY(!enrollToken.isEmpty());
    m_worker = std::make_unique<QProcess>();
    m_worker->setProcessChannelMode(QProcess::MergedChannels);
    m_worker->setStandardOutputFile(m_dir.filePath(u"worker.log"_s));
    // As root (CI) the worker must be told that it may run so.
    const QStringList asRoot = ::geteuid() == 0 ? QStringList{u"--allow-root"_s} : QStringList{};
    m_worker->start(ServerProcess::binary(u"ddl-worker"_s),
                    asRoot + QStringList{u"--server"_s,
                     m_second->url().toString(),
                     u"--token"_s,
                     enrollToken,
                     u"--ca-cert"_s,
                     m_second->caFile(),
                     u"--work-dir"_s,
                     m_dir.filePath(u"worker"_s),
                     u"--slots"_s,
                     u"4"_s});
    QVERIFY(m_worker->waitForStarted(5000));
}

void tst_E2eTwoServers::cleanupTestCase()
{
    if (m_worker) {
        m_worker->terminate();
        if (!m_worker->waitForFinished(10000))
            m_worker->kill();
    }
    m_first.reset();
    m_second.reset();
}

QString tst_E2eTwoServers::submit(HttpsClient &server, int serial)
{
    const QJsonObject submission{
        {u"spec"_s, jobSpec(u"openpai"_s, u"ha-%1"_s.arg(serial), 2, 0, u"sleep 0.3"_s)},
        {u"package"_s, QJsonValue::Null},
        {u"dataset"_s, QJsonValue::Null}};
    const HttpsClient::Answer answer = server.call("POST", "/v1/jobs", m_token, json(submission));
    if (answer.status != 201) {
        qWarning("submit %d: HTTP %d %s", serial, answer.status, answer.body.constData());
        return {};
    }
    return parse(answer.body).value(u"uuid"_s).toString();
}

void tst_E2eTwoServers::twoServersShareTheWorkAndSurviveTheLeadersDeath()
{
    QVERIFY2(!m_second->log().contains(Leads), qPrintable(m_second->log()));
    HttpsClient first(m_first->port(), m_ca);
    HttpsClient second(m_second->port(), m_ca);
    const QString workerLog = m_dir.filePath(u"worker.log"_s);
    const auto readWorkerLog = [&] {
        QFile file(workerLog);
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    };
    const auto stateOf = [&](const QString &uuid) {
        const HttpsClient::Answer answer =
            second.call("GET", "/v1/jobs/" + uuid.toLatin1(), m_token);
        return parse(answer.body).value(u"state"_s).toString();
    };
    const auto succeeds = [&](const QString &uuid) {
        QString state;
        const PollResult ended = pollUntil(
            [&] {
                state = stateOf(uuid);
                return state == u"SUCCEEDED"_s || state == u"FAILED"_s || state == u"STOPPED"_s;
            },
            90000);
        if (!ended || state != u"SUCCEEDED"_s)
            qWarning("job %s is %s\n%s",
                     qPrintable(uuid),
                     qPrintable(state),
                     qPrintable(readWorkerLog().right(3000)));
        return ended && state == u"SUCCEEDED"_s;
    };
    QStringList accepted;
    int serial = 0;
    // While the first leads: jobs submitted to either server run, leased through the second
    // (the second's submissions reach the leader only through NOTIFY).
    for (; serial < 12; ++serial) {
        const QString uuid = submit(serial % 2 ? second : first, serial);
        QVERIFY(!uuid.isEmpty());
        accepted << uuid;
    }
    for (const QString &uuid : std::as_const(accepted))
        QVERIFY(succeeds(uuid));
    QVERIFY2(!m_second->log().contains(Leads), qPrintable(m_second->log()));

    // Jobs accepted just before the leader dies, waiting or placed, are not lost.
    for (; serial < 18; ++serial) {
        const QString uuid = submit(serial % 2 ? second : first, serial);
        QVERIFY(!uuid.isEmpty());
        accepted << uuid;
    }
    QVERIFY(m_first->kill());
    QElapsedTimer sinceKill;
    sinceKill.start();
    QVERIFY2(pollUntil([&] { return m_second->log().contains(Leads); }, 10000),
             qPrintable(m_second->log()));
    qInfo("the second server leads %lld ms after the first was killed", sinceKill.elapsed());

    for (; serial < 24; ++serial) {
        const QString uuid = submit(second, serial);
        QVERIFY(!uuid.isEmpty());
        accepted << uuid;
    }
    for (const QString &uuid : std::as_const(accepted))
        QVERIFY(succeeds(uuid));
    // No task was placed (and so run) twice: the worker prepared each task once.
    static const QRegularExpression preparing(u"task (\\d+) preparing in"_s);
    QHash<QString, int> runs;
    for (const QRegularExpressionMatch &match : preparing.globalMatch(readWorkerLog()))
        ++runs[match.captured(1)];
    QCOMPARE(runs.size(), qsizetype(accepted.size()) * 2);
    for (auto it = runs.cbegin(); it != runs.cend(); ++it)
        QVERIFY2(it.value() == 1, qPrintable(u"task "_s + it.key() + u" ran twice"_s));
}

void tst_E2eTwoServers::socketUrlWorksAndAWrongPasswordIsNotShown()
{
    // A data dir of its own, so that ServerProcess adds no --database of its own.
    const QString dataDir = m_dir.filePath(u"admin"_s);
    const QString socketUrl =
        u"postgresql://ddl@/twoservers?host=%1&port=%2"_s.arg(m_postgres.socketDir())
            .arg(m_postgres.port());
    int exitCode = -1;
    QString errors;
    const QString token = ServerProcess::runCommand(
        {u"token"_s, u"create"_s, u"--data-dir"_s, dataDir, u"--database"_s, socketUrl},
        &exitCode,
        &errors);
    QVERIFY2(exitCode == 0, qPrintable(errors));
    QVERIFY2(token.startsWith(u"ddle_"_s), qPrintable(token));

    const QString wrong =
        u"postgresql://ddl:not-the-Password-42@127.0.0.1:%1/twoservers"_s.arg(m_postgres.port());
    ServerProcess::runCommand(
        {u"token"_s, u"create"_s, u"--data-dir"_s, dataDir, u"--database"_s, wrong},
        &exitCode,
        &errors);
    QCOMPARE(exitCode, 1);
    QVERIFY2(errors.contains(u"cannot connect to the store postgresql://ddl:***@127.0.0.1"_s),
             qPrintable(errors));
    QVERIFY2(errors.contains(u"password authentication failed"_s), qPrintable(errors));
    QVERIFY2(!errors.contains(u"not-the-Password-42"_s), qPrintable(errors));
}

void tst_E2eTwoServers::serversStartingAtOnceMigrateAFreshDatabaseOnce()
{
    const QString url = m_postgres.createDatabase(u"fresh"_s);
    QVERIFY(!url.isEmpty());
    // Admin commands open the store as the server does, schema and all: three at the same moment.
    std::vector<std::unique_ptr<QProcess>> commands;
    for (int i = 0; i < 3; ++i) {
        auto command = std::make_unique<QProcess>();
        command->start(ServerProcess::binary(u"ddl-server"_s),
                       {u"token"_s, u"create"_s, u"--data-dir"_s,
                        m_dir.filePath(u"fresh%1"_s.arg(i)), u"--database"_s, url});
        commands.push_back(std::move(command));
    }
    int migrated = 0;
    for (const auto &command : commands) {
        QVERIFY(command->waitForFinished(30000));
        const QString errors = QString::fromUtf8(command->readAllStandardError());
        QVERIFY2(command->exitStatus() == QProcess::NormalExit && command->exitCode() == 0,
                 qPrintable(errors));
        QVERIFY(QString::fromUtf8(command->readAllStandardOutput()).startsWith(u"ddle_"_s));
        migrated += int(errors.count(u"migrating store to schema version 1\n"_s));
    }
    // One of them made the schema; the others waited for it and found it up to date.
    QCOMPARE(migrated, 1);
}

QTEST_GUILESS_MAIN(tst_E2eTwoServers)
#include "tst_e2e_twoservers.moc"
