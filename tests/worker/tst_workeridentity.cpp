#include "agent/workeridentity.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ddl::worker::WorkerIdentity;

class tst_WorkerIdentity : public QObject
{
    Q_OBJECT

private slots:
    void missingFileIsNoIdentity();
    void saveIsOwnerOnlyAndLoadsBack();
    void numericWorkerId();
    void brokenFileIsAnError();
};

void tst_WorkerIdentity::missingFileIsNoIdentity()
{
    QTemporaryDir dir;
    const auto loaded = WorkerIdentity::load(dir.filePath(u"worker.json"_s));
    QVERIFY(loaded.ok());
    QVERIFY(!loaded->has_value());
}

void tst_WorkerIdentity::saveIsOwnerOnlyAndLoadsBack()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"worker.json"_s);
    const WorkerIdentity identity{u"https://server:8443"_s, u"w-17"_s, u"secret-token"_s};
    QVERIFY(identity.save(path).ok());
    QCOMPARE(QFile::permissions(path),
             QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser |
                 QFileDevice::WriteUser);

    const auto loaded = WorkerIdentity::load(path);
    QVERIFY(loaded.ok() && loaded->has_value());
    QCOMPARE((*loaded)->server, identity.server);
    QCOMPARE((*loaded)->workerId, identity.workerId);
    QCOMPARE((*loaded)->workerToken, identity.workerToken);
}

void tst_WorkerIdentity::numericWorkerId()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"worker.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"server": "https://s", "worker_id": 42, "worker_token": "t"})");
    file.close();
    const auto loaded = WorkerIdentity::load(path);
    QVERIFY(loaded.ok() && loaded->has_value());
    QCOMPARE((*loaded)->workerId, u"42"_s);
}

void tst_WorkerIdentity::brokenFileIsAnError()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"worker.json"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{not json");
    file.close();
    const auto loaded = WorkerIdentity::load(path);
    QVERIFY(!loaded.ok());
    QVERIFY(loaded.error().message.contains(path));
}

QTEST_GUILESS_MAIN(tst_WorkerIdentity)
#include "tst_workeridentity.moc"
