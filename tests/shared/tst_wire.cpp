#include "core/error.h"
#include "wire/jobstate.h"
#include "wire/tasklease.h"

#include <QJsonArray>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl;

Q_DECLARE_METATYPE(ddl::Error)
Q_DECLARE_METATYPE(ddl::ErrorCode)
Q_DECLARE_METATYPE(ddl::JobState)

// The wire's one spelling of states and error codes, and the lease as one typed message: what
// the server sends reads back as the same value on the worker and the clients.
class tst_Wire : public QObject
{
    Q_OBJECT

private slots:
    void statesRoundTrip();
    void unknownStateRefused_data();
    void unknownStateRefused();
    void finalStates_data();
    void finalStates();
    void errorCodesRoundTrip();
    void errorCodesSpelling_data();
    void errorCodesSpelling();
    void synonymsRead_data();
    void synonymsRead();
    void unknownCodeKeptAsSent();
    void classifiers_data();
    void classifiers();
    void leaseRoundTrip();
};

void tst_Wire::statesRoundTrip()
{
    QStringList names;
    for (const JobState state : AllJobStates) {
        const Result<JobState> read = parseJobState(stateName(state));
        QVERIFY(read.ok());
        QCOMPARE(*read, state);
        names << stateName(state);
    }
    QCOMPARE(names,
             QStringList({u"WAITING"_s, u"RUNNING"_s, u"SUCCEEDED"_s, u"FAILED"_s, u"STOPPED"_s}));
    QCOMPARE(allStateNames(), names);
}

void tst_Wire::unknownStateRefused_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("lowercase") << u"running"_s;
    QTest::newRow("empty") << QString();
    QTest::newRow("other") << u"PAUSED"_s;
}

void tst_Wire::unknownStateRefused()
{
    QFETCH(QString, name);
    const Result<JobState> read = parseJobState(name);
    QVERIFY(!read.ok());
    QCOMPARE(read.error().code, u"bad_request"_s);
    QCOMPARE(read.error().field, u"state"_s);
    // The message names what was given and what to use instead.
    QVERIFY2(read.error().message.contains(u"'%1'"_s.arg(name)), qPrintable(read.error().message));
    QVERIFY2(read.error().message.contains(u"WAITING, RUNNING, SUCCEEDED, FAILED, STOPPED"_s),
             qPrintable(read.error().message));
    QVERIFY(!isFinalState(name));
}

void tst_Wire::finalStates_data()
{
    QTest::addColumn<JobState>("state");
    QTest::addColumn<bool>("final");
    QTest::newRow("waiting") << JobState::Waiting << false;
    QTest::newRow("running") << JobState::Running << false;
    QTest::newRow("succeeded") << JobState::Succeeded << true;
    QTest::newRow("failed") << JobState::Failed << true;
    QTest::newRow("stopped") << JobState::Stopped << true;
}

void tst_Wire::finalStates()
{
    QFETCH(JobState, state);
    QFETCH(bool, final);
    QCOMPARE(isFinal(state), final);
    QCOMPARE(isFinalState(stateName(state)), final);
}

void tst_Wire::errorCodesRoundTrip()
{
    // Every code reads back as itself, and no two codes share a spelling.
    QSet<QString> seen;
    for (int i = 0; i <= int(ErrorCode::VenvFailed); ++i) {
        const auto code = ErrorCode(i);
        const QString name = codeName(code);
        QVERIFY2(!name.isEmpty() && !seen.contains(name), qPrintable(name));
        seen.insert(name);
        QCOMPARE(parseErrorCode(name), std::optional<ErrorCode>(code));
        const Error error = Error::make(code, u"what failed"_s, u"field"_s);
        QVERIFY(error.is(code));
        const Error read = Error::fromJson(error.toJson());
        QCOMPARE(read.code, name);
        QCOMPARE(read.message, u"what failed"_s);
        QCOMPARE(read.field, u"field"_s);
    }
}

// The spellings clients and scripts match on (docs/api.md), with the names whose snake_case is
// least obvious: one-letter words, initialisms.
void tst_Wire::errorCodesSpelling_data()
{
    QTest::addColumn<ErrorCode>("code");
    QTest::addColumn<QString>("spelling");
    QTest::newRow("one word") << ErrorCode::Conflict << u"conflict"_s;
    QTest::newRow("three words") << ErrorCode::ArchiveTooLarge << u"archive_too_large"_s;
    QTest::newRow("a one-letter word") << ErrorCode::NotAFile << u"not_a_file"_s;
    QTest::newRow("initialisms") << ErrorCode::BadCaCert << u"bad_ca_cert"_s;
    QTest::newRow("io") << ErrorCode::IoError << u"io_error"_s;
    QTest::newRow("py") << ErrorCode::NoMainPy << u"no_main_py"_s;
    QTest::newRow("first") << ErrorCode::Aborted << u"aborted"_s;
    QTest::newRow("last") << ErrorCode::VenvFailed << u"venv_failed"_s;
}

void tst_Wire::errorCodesSpelling()
{
    QFETCH(ErrorCode, code);
    QFETCH(QString, spelling);
    QCOMPARE(codeName(code), spelling);
    QCOMPARE(parseErrorCode(spelling), std::optional<ErrorCode>(code));
}

void tst_Wire::synonymsRead_data()
{
    QTest::addColumn<QString>("sent");
    QTest::addColumn<ErrorCode>("code");
    QTest::newRow("bad_config") << u"bad_config"_s << ErrorCode::InvalidConfig;
    QTest::newRow("certificate_mismatch")
        << u"certificate_mismatch"_s << ErrorCode::CertificateChanged;
    QTest::newRow("bad_response") << u"bad_response"_s << ErrorCode::BadAnswer;
}

void tst_Wire::synonymsRead()
{
    QFETCH(QString, sent);
    QFETCH(ErrorCode, code);
    QCOMPARE(parseErrorCode(sent), std::optional<ErrorCode>(code));
    // An older server's spelling compares as the one spelling this version uses.
    const QJsonObject wire{{u"error"_s, QJsonObject{{u"code"_s, sent}, {u"message"_s, u"m"_s}}}};
    const Error read = Error::fromJson(wire);
    QVERIFY(read.is(code));
    QCOMPARE(read.code, codeName(code));
    QVERIFY(codeName(code) != sent);
}

void tst_Wire::unknownCodeKeptAsSent()
{
    QCOMPARE(parseErrorCode(u"quota_exceeded"), std::nullopt);
    QCOMPARE(parseErrorCode(u"NOT_FOUND"), std::nullopt);
    // A newer server's code is not lost: the client shows it as it came.
    const QJsonObject wire{
        {u"error"_s, QJsonObject{{u"code"_s, u"quota_exceeded"_s}, {u"message"_s, u"m"_s}}}};
    QCOMPARE(Error::fromJson(wire).code, u"quota_exceeded"_s);
    QCOMPARE(Error::httpStatus(502, u"bad gateway"_s).code, u"http_502"_s);
}

void tst_Wire::classifiers_data()
{
    QTest::addColumn<Error>("error");
    QTest::addColumn<bool>("transient");
    QTest::addColumn<bool>("unauthorized");
    const auto make = [](ErrorCode code) { return Error::make(code, u"m"_s); };
    QTest::newRow("unreachable") << make(ErrorCode::Unreachable) << true << false;
    QTest::newRow("timeout") << make(ErrorCode::Timeout) << true << false;
    QTest::newRow("network") << make(ErrorCode::Network) << true << false;
    QTest::newRow("internal") << make(ErrorCode::Internal) << true << false;
    QTest::newRow("http 503") << Error::httpStatus(503, u"m"_s) << true << false;
    QTest::newRow("http 401") << Error::httpStatus(401, u"m"_s) << false << true;
    QTest::newRow("unauthorized") << make(ErrorCode::Unauthorized) << false << true;
    QTest::newRow("session_expired") << make(ErrorCode::SessionExpired) << false << true;
    QTest::newRow("not_found") << make(ErrorCode::NotFound) << false << false;
    QTest::newRow("bad_request") << make(ErrorCode::BadRequest) << false << false;
}

void tst_Wire::classifiers()
{
    QFETCH(Error, error);
    QFETCH(bool, transient);
    QFETCH(bool, unauthorized);
    QCOMPARE(isTransient(error), transient);
    QCOMPARE(isUnauthorized(error), unauthorized);
}

void tst_Wire::leaseRoundTrip()
{
    TaskLease lease;
    lease.taskId = 42;
    lease.jobUuid = u"6f1c"_s;
    lease.jobName = u"mnist"_s;
    lease.kind = TaskLease::Kind::OpenPai;
    lease.attempt = 2;
    lease.role = u"worker"_s;
    lease.roleIndex = 1;
    lease.command = u"python train.py"_s;
    lease.gpus = 2;
    lease.gpuIndices = {0, 3};
    lease.cpus = 4;
    lease.memoryMb = 8192;
    lease.port = 40001;
    lease.shmMb = 512;
    lease.packageSha256 = QString(64, u'a');
    lease.datasetManifest = QString(64, u'b');
    lease.env = {{u"PAI_TASK_ROLE_INDEX"_s, u"1"_s}, {u"TF_CONFIG"_s, u"{}"_s}};
    lease.outputPrefix = u"worker-1/"_s;
    lease.checkpointManifest = QString(64, u'c');
    lease.checkpointAttempt = 1;
    lease.checkpointMaxBytes = 1 << 20;

    const QJsonObject json = lease.toJson();
    // What the worker reads is what the server built, field by field.
    const Result<TaskLease> read = TaskLease::fromJson(json);
    QVERIFY2(read.ok(), read.ok() ? "" : qPrintable(read.error().message));
    QCOMPARE(read->taskId, lease.taskId);
    QCOMPARE(read->jobUuid, lease.jobUuid);
    QCOMPARE(read->jobName, lease.jobName);
    QCOMPARE(read->kind, lease.kind);
    QCOMPARE(read->attempt, lease.attempt);
    QCOMPARE(read->role, lease.role);
    QCOMPARE(read->roleIndex, lease.roleIndex);
    QCOMPARE(read->command, lease.command);
    QCOMPARE(read->gpus, lease.gpus);
    QCOMPARE(read->gpuIndices, lease.gpuIndices);
    QCOMPARE(read->cpus, lease.cpus);
    QCOMPARE(read->memoryMb, lease.memoryMb);
    QCOMPARE(read->port, lease.port);
    QCOMPARE(read->shmMb, lease.shmMb);
    QCOMPARE(read->packageSha256, lease.packageSha256);
    QCOMPARE(read->datasetSha256, QString());
    QCOMPARE(read->datasetManifest, lease.datasetManifest);
    QCOMPARE(read->env, lease.env);
    QCOMPARE(read->outputPrefix, lease.outputPrefix);
    QCOMPARE(read->checkpointManifest, lease.checkpointManifest);
    QCOMPARE(read->checkpointAttempt, lease.checkpointAttempt);
    QCOMPARE(read->checkpointMaxBytes, lease.checkpointMaxBytes);
    // Absent data is null on the wire, as docs/api.md says.
    QVERIFY(json.value(u"dataset_sha256"_s).isNull());
    // A checkpoint manifest that is not a digest is refused, naming the field.
    QJsonObject badCheckpoint = json;
    badCheckpoint.insert(u"checkpoint_manifest"_s, u"../../etc"_s);
    const Result<TaskLease> refused = TaskLease::fromJson(badCheckpoint);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().field, u"checkpoint_manifest"_s);
    QCOMPARE(json.value(u"gpu_indices"_s).toArray(), QJsonArray({0, 3}));
}

QTEST_GUILESS_MAIN(tst_Wire)
#include "tst_wire.moc"
