// The trust score's formula (docs/trust.md), and the canary's known answer checked against a real
// python3 running the canary's own command.
#include "app/serverconfig.h"
#include "workers/canaryservice.h"
#include "workers/trustscore.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace ddl::server;
using namespace Qt::StringLiterals;

Q_DECLARE_METATYPE(TrustInputs)

class tst_Trust : public QObject
{
    Q_OBJECT
private slots:
    void score_data();
    void score();
    void honestPythonGivesTheAnswer();
    void challengesDiffer();
    void canariesAreAServerSetting();
};

void tst_Trust::score_data()
{
    QTest::addColumn<TrustInputs>("inputs");
    QTest::addColumn<int>("score");
    constexpr qint64 hour = 3600 * 1000;
    QTest::newRow("new worker: only its tasks part") << TrustInputs{} << 30;
    QTest::newRow("first canary passed") << TrustInputs{.canariesPassed = 1} << 40;
    QTest::newRow("a day online, 4 canaries, nothing failed")
        << TrustInputs{.uptimeMs = 24 * hour, .tasksEnded = 50, .canariesPassed = 4} << 100;
    QTest::newRow("canaries count up to 4")
        << TrustInputs{.uptimeMs = 48 * hour, .canariesPassed = 9} << 100;
    QTest::newRow("half a day online") << TrustInputs{.uptimeMs = 12 * hour} << 45;
    QTest::newRow("each heartbeat loss costs 10 of the uptime part")
        << TrustInputs{.uptimeMs = 24 * hour, .heartbeatLosses = 2} << 40;
    QTest::newRow("the uptime part is never below 0")
        << TrustInputs{.uptimeMs = hour, .heartbeatLosses = 5} << 30;
    QTest::newRow("1 of 8 tasks failed for the worker")
        << TrustInputs{.tasksEnded = 8, .tasksFailedByWorker = 1} << 27;
    QTest::newRow("all its tasks failed for the worker")
        << TrustInputs{.tasksEnded = 10, .tasksFailedByWorker = 10} << 5;
    QTest::newRow("a failed canary costs 20")
        << TrustInputs{.canariesPassed = 3, .canariesFailed = 1} << 40;
    QTest::newRow("quarantined: 0")
        << TrustInputs{.uptimeMs = 24 * hour, .canariesPassed = 4, .quarantined = true} << 0;
}

void tst_Trust::score()
{
    QFETCH(TrustInputs, inputs);
    QFETCH(int, score);
    QCOMPARE(TrustScore::of(inputs), score);
}

void tst_Trust::honestPythonGivesTheAnswer()
{
    // The canary project's main() as the DDL runner calls it, in a real python3, with the seed
    // in the environment as the job's jobEnvs put it.
    const CanaryChallenge challenge = CanaryChallenge::make();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile main(dir.filePath(u"main.py"_s));
    QVERIFY(main.open(QIODevice::WriteOnly));
    main.write(CanaryChallenge::mainPy());
    main.close();
    QProcess python;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QString(CanaryChallenge::SeedVariable), challenge.seed);
    environment.insert(u"PYTHONPATH"_s, dir.path());
    python.setProcessEnvironment(environment);
    python.setProcessChannelMode(QProcess::MergedChannels);
    python.start(u"python3"_s,
                 {u"-c"_s, u"import sys, main; main.main(sys.argv[1], sys.argv[1])"_s, dir.path()});
    QVERIFY2(python.waitForFinished(60000), qPrintable(python.errorString()));
    QVERIFY2(python.exitCode() == 0, python.readAll().constData());
    QFile file(dir.filePath(QString(CanaryChallenge::OutputFile)));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray written = file.readAll();
    QCOMPARE(written, CanaryChallenge::expectedOutput(challenge.seed));
    QCOMPARE(
        QString::fromLatin1(QCryptographicHash::hash(written, QCryptographicHash::Sha256).toHex()),
        challenge.answerSha256);
}

void tst_Trust::challengesDiffer()
{
    // A fresh seed each time: a worker cannot remember the answer.
    const CanaryChallenge a = CanaryChallenge::make();
    const CanaryChallenge b = CanaryChallenge::make();
    QVERIFY(a.seed != b.seed);
    QVERIFY(a.answerSha256 != b.answerSha256);
    QCOMPARE(a.seed.size(), 32);
}

void tst_Trust::canariesAreAServerSetting()
{
    // Off unless the admin turns them on (docs/trust.md: why).
    QCOMPARE(ServerConfig().canaries, false);
    QTemporaryDir dir;
    const auto configWith = [&dir](const QByteArray &yaml) {
        const QString path = dir.filePath(u"server.yaml"_s);
        QFile file(path);
        file.open(QIODevice::WriteOnly | QIODevice::Truncate);
        file.write(yaml);
        file.close();
        return ServerConfig::fromYamlFile(path);
    };
    const ddl::Result<ServerConfig> on =
        configWith("data_dir: /x\ncanaries: true\ncanary_interval_hours: 6\n");
    QVERIFY2(on.ok(), qPrintable(on.ok() ? QString() : on.error().message));
    QCOMPARE(on->canaries, true);
    QCOMPARE(on->canaryIntervalHours, 6.0);
    const ddl::Result<ServerConfig> never = configWith("canary_interval_hours: 0\n");
    QVERIFY(!never.ok());
    QVERIFY2(never.error().message.contains(u"canary_interval_hours must be more than 0"_s),
             qPrintable(never.error().message));
}

QTEST_GUILESS_MAIN(tst_Trust)
#include "tst_trust.moc"
