#include "wire/tasklease.h"

#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using ddl::TaskLease;

static const QByteArray Sha(64, 'a');

class tst_TaskLease : public QObject
{
    Q_OBJECT

private slots:
    void fullLease();
    void manifestDataset();
    void pushedImage();
    void errors_data();
    void errors();
    void outputPrefix_data();
    void outputPrefix();
};

static QJsonObject lease(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

void tst_TaskLease::fullLease()
{
    const QByteArray json = R"({"task_id": 17, "job_uuid": "u-1", "job_name": "mnist",
        "kind": "openpai", "attempt": 2, "role": "worker", "role_index": 1,
        "command": "python train.py", "gpus": 1, "cpus": 4, "memory_mb": 8192,
        "package_sha256": ")" +
                            Sha + R"(", "dataset_sha256": null,
        "env": {"PAI_JOB_NAME": "mnist", "PAI_TASK_ROLE_INDEX": "1", "PAI_TASKS_NUM": 2}})";
    const ddl::Result<TaskLease> parsed = TaskLease::fromJson(lease(json));
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : qPrintable(parsed.error().message));
    QCOMPARE(parsed->taskId, 17);
    QCOMPARE(parsed->kind, TaskLease::Kind::OpenPai);
    QCOMPARE(parsed->attempt, 2);
    QCOMPARE(parsed->roleIndex, 1);
    QCOMPARE(parsed->gpus, 1);
    QCOMPARE(parsed->memoryMb, 8192);
    QCOMPARE(parsed->packageSha256, QString::fromLatin1(Sha));
    QVERIFY(parsed->datasetSha256.isEmpty());
    QCOMPARE(parsed->env.value(u"PAI_JOB_NAME"_s), u"mnist"_s);
    QCOMPARE(parsed->env.value(u"PAI_TASKS_NUM"_s), u"2"_s);
}

void tst_TaskLease::manifestDataset()
{
    const QByteArray manifest(64, 'b');
    const QByteArray json = R"({"task_id": 8, "package_sha256": ")" + Sha +
                            R"(", "dataset_sha256": null, "dataset_manifest": ")" + manifest +
                            R"("})";
    const ddl::Result<TaskLease> parsed = TaskLease::fromJson(lease(json));
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : qPrintable(parsed.error().message));
    QCOMPARE(parsed->datasetManifest, QString::fromLatin1(manifest));
    QVERIFY(parsed->datasetSha256.isEmpty());

    // Older servers send no dataset_manifest at all; newer ones null when there is none.
    const ddl::Result<TaskLease> older =
        TaskLease::fromJson(lease(R"({"task_id": 9, "package_sha256": ")" + Sha + R"("})"));
    QVERIFY(older.ok());
    QVERIFY(older->datasetManifest.isEmpty());
    const ddl::Result<TaskLease> none = TaskLease::fromJson(
        lease(R"({"task_id": 9, "package_sha256": ")" + Sha + R"(", "dataset_manifest": null})"));
    QVERIFY(none.ok());
    QVERIFY(none->datasetManifest.isEmpty());
}

void tst_TaskLease::pushedImage()
{
    TaskLease sent;
    sent.taskId = 10;
    sent.packageSha256 = QString::fromLatin1(Sha);
    sent.image = u"ddl://ddl-test"_s;
    sent.imageManifest = QString(64, u'c');
    const ddl::Result<TaskLease> parsed = TaskLease::fromJson(sent.toJson());
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : qPrintable(parsed.error().message));
    QCOMPARE(parsed->image, sent.image);
    QCOMPARE(parsed->imageManifest, sent.imageManifest);
    // A server from before pushed images sends none.
    const ddl::Result<TaskLease> older =
        TaskLease::fromJson(lease(R"({"task_id": 9, "package_sha256": ")" + Sha + R"("})"));
    QVERIFY(older.ok());
    QVERIFY(older->imageManifest.isEmpty());
}

void tst_TaskLease::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("field");
    QTest::addColumn<qint64>("taskId");
    QTest::newRow("no id") << QByteArray(R"({"package_sha256": ")" + Sha + R"("})") << u"task_id"_s
                           << qint64(-1);
    QTest::newRow("bad kind") << QByteArray(R"({"task_id": 3, "kind": "slurm"})") << u"kind"_s
                              << qint64(3);
    QTest::newRow("bad package") << QByteArray(R"({"task_id": 4, "package_sha256": "xyz"})")
                                 << u"package_sha256"_s << qint64(4);
    QTest::newRow("bad manifest") << QByteArray(R"({"task_id": 6, "package_sha256": ")" + Sha +
                                                R"(", "dataset_manifest": "../x"})")
                                  << u"dataset_manifest"_s << qint64(6);
    QTest::newRow("manifest not a string") << QByteArray(R"({"task_id": 7, "package_sha256": ")" +
                                                         Sha + R"(", "dataset_manifest": 12})")
                                           << u"dataset_manifest"_s << qint64(7);
    QTest::newRow("bad image manifest") << QByteArray(R"({"task_id": 8, "package_sha256": ")" +
                                                      Sha + R"(", "image_manifest": "../x"})")
                                        << u"image_manifest"_s << qint64(8);
    QTest::newRow("openpai without command")
        << QByteArray(R"({"task_id": 5, "kind": "openpai", "package_sha256": ")" + Sha + R"("})")
        << u"command"_s << qint64(5);
}

void tst_TaskLease::errors()
{
    QFETCH(QByteArray, json);
    qint64 taskId = -1;
    const ddl::Result<TaskLease> parsed = TaskLease::fromJson(lease(json), &taskId);
    QVERIFY(!parsed.ok());
    QTEST(parsed.error().field, "field");
    QTEST(taskId, "taskId");
}

void tst_TaskLease::outputPrefix_data()
{
    // The server names where a task's outputs go among the job's artifacts; a lease naming a
    // place outside of them is refused.
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("none: the root") << QString() << true;
    QTest::newRow("role and index") << u"worker-1/"_s << true;
    QTest::newRow("nested") << u"ps-0/shard-2/"_s << true;
    QTest::newRow("no trailing slash") << u"worker-1"_s << false;
    QTest::newRow("absolute") << u"/etc/"_s << false;
    QTest::newRow("parent") << u"../"_s << false;
    QTest::newRow("parent inside") << u"worker-1/../../"_s << false;
    QTest::newRow("empty part") << u"worker-1//"_s << false;
    QTest::newRow("dot") << u"./"_s << false;
    QTest::newRow("backslash") << u"worker\\1/"_s << false;
}

void tst_TaskLease::outputPrefix()
{
    QFETCH(QString, prefix);
    QFETCH(bool, accepted);
    QJsonObject object = lease(R"({"task_id": 11, "package_sha256": ")" + Sha + R"("})");
    object.insert(u"output_prefix"_s, prefix);
    const ddl::Result<TaskLease> parsed = TaskLease::fromJson(object);
    QCOMPARE(parsed.ok(), accepted);
    if (accepted)
        QCOMPARE(parsed->outputPrefix, prefix);
    else
        QCOMPARE(parsed.error().field, u"output_prefix"_s);
}

QTEST_GUILESS_MAIN(tst_TaskLease)
#include "tst_tasklease.moc"
