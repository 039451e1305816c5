// Crash safety of ddl-server: while ddlcli submits OpenPAI jobs and DDL jobs with fresh datasets
// (uploads of 24 MiB) and a real ddl-worker runs them, the test SIGKILLs the server at random
// moments (and, every fourth time, in the middle of an upload) and starts it again on the same
// data dir and port. After every restart: the server answers within 5 s, every blob in its store
// is whole (its bytes hash to its name), and no upload's recorded offset runs past its part
// file. At the end: every job whose submission got a 201 exists exactly once, no job exists
// twice, every job ends SUCCEEDED (running tasks reattach or are retried), and uploads that
// were cut resumed into whole blobs.
//
// DDL_CRASH_SEED picks the random moments (the seed is printed); DDL_CRASH_KILLS their number.

#include "clusterharness.h"
#include "crashworkload.h"
#include "httpsclient.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>
#include <QUrl>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace {

constexpr qint64 DatasetBytes = 24 * 1024 * 1024;

QByteArray mainPy()
{
    return "import os\n"
           "\n"
           "def main(dataset_dir, model_output_dir):\n"
           "    size = 0\n"
           "    for root, _, files in os.walk(dataset_dir):\n"
           "        size += sum(os.path.getsize(os.path.join(root, f)) for f in files)\n"
           "    with open(os.path.join(model_output_dir, 'size.txt'), 'w') as out:\n"
           "        out.write(str(size))\n"
           "    print('dataset bytes', size)\n";
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QString sha256Hex(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

QByteArray randomBytes(QRandomGenerator &random, qint64 size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    random.fillRange(reinterpret_cast<quint32 *>(bytes.data()), size_t(size / 4));
    return bytes;
}

// One row of the server's uploads table.
struct UploadRow
{
    QString id;
    QString sha256;
    qint64 size = 0;
    qint64 offset = 0;
};

} // namespace

class tst_CrashServer : public QObject
{
    Q_OBJECT

private slots:
    void killedServerLosesNothing();
    // Small files come in batches and lie in packs: a server killed as soon as the batches
    // were answered serves every one of them, byte for byte, once restarted.
    void killedAfterBatchesServesEveryBlob();

private:
    QList<UploadRow> uploads(ClusterHarness &cluster);
    // Every blob not checked before (a file of its own, or a window of a pack the store
    // records) hashes to its name; returns the first one that does not.
    QString unverifiedBlob(ClusterHarness &cluster);
    // Milliseconds until GET /v1/version answers 200, or -1 after timeoutMs.
    qint64 msUntilAnswer(ClusterHarness &cluster, int timeoutMs);

    QSet<QString> m_verifiedBlobs;
};

QList<UploadRow> tst_CrashServer::uploads(ClusterHarness &cluster)
{
    QList<UploadRow> rows;
    const QString connection = QUuid::createUuid().toString();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, connection);
        db.setDatabaseName(cluster.path(u"server/ddl.sqlite"_s));
        db.setConnectOptions(u"QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"_s);
        if (db.open()) {
            QSqlQuery query(db);
            if (query.exec(u"SELECT id, sha256, size, offset FROM uploads"_s)) {
                while (query.next()) {
                    rows << UploadRow{query.value(0).toString(), query.value(1).toString(),
                                      query.value(2).toLongLong(), query.value(3).toLongLong()};
                }
            }
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
    return rows;
}

QString tst_CrashServer::unverifiedBlob(ClusterHarness &cluster)
{
    QDirIterator it(cluster.path(u"server/blobs"_s), QDir::Files | QDir::Hidden,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString name = it.fileName();
        if (m_verifiedBlobs.contains(name))
            continue;
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return path + u" (unreadable)"_s;
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hash.addData(&file);
        if (QString::fromLatin1(hash.result().toHex()) != name)
            return u"%1 (%2 bytes)"_s.arg(path).arg(file.size());
        m_verifiedBlobs.insert(name);
    }
    // Packed blobs: where the store says each one lies.
    QString bad;
    const QString connection = QUuid::createUuid().toString();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, connection);
        db.setDatabaseName(cluster.path(u"server/ddl.sqlite"_s));
        db.setConnectOptions(u"QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=5000"_s);
        QSqlQuery query(db);
        if (!db.open()
            || !query.exec(u"SELECT sha256, size, pack, pack_offset FROM blobs "
                           "WHERE pack IS NOT NULL"_s)) {
            bad = u"cannot read the blobs table: "_s + query.lastError().text();
        }
        while (bad.isEmpty() && query.next()) {
            const QString name = query.value(0).toString();
            if (m_verifiedBlobs.contains(name))
                continue;
            QFile pack(cluster.path(u"server/packs/"_s + query.value(2).toString()));
            const qint64 size = query.value(1).toLongLong();
            if (!pack.open(QIODevice::ReadOnly) || !pack.seek(query.value(3).toLongLong())) {
                bad = pack.fileName() + u" (unreadable)"_s;
                break;
            }
            if (QString::fromLatin1(QCryptographicHash::hash(pack.read(size),
                                                             QCryptographicHash::Sha256)
                                        .toHex())
                != name) {
                bad = u"%1 in %2 at %3"_s.arg(name, pack.fileName(), query.value(3).toString());
                break;
            }
            m_verifiedBlobs.insert(name);
        }
    }
    QSqlDatabase::removeDatabase(connection);
    return bad;
}

void tst_CrashServer::killedAfterBatchesServesEveryBlob()
{
    ClusterHarness cluster;
    QVERIFY2(cluster.startServer(), qPrintable(cluster.serverLog()));
    const QString user = u"bob"_s;
    QVERIFY(cluster.registerAndLogin(user, u"bob-password"_s));
    // 300 files of 1-9 KiB in three folders: batches of small blobs.
    QRandomGenerator random(7);
    const QString source = cluster.path(u"small-files"_s);
    QMap<QString, QByteArray> files;
    for (int i = 0; i < 300; ++i) {
        const QString name = u"part%1/file-%2.bin"_s.arg(i % 3).arg(i);
        files.insert(name, randomBytes(random, 1024 * (1 + i % 9) + 4 * i));
        QVERIFY(writeFile(source + u'/' + name, files.value(name)));
    }
    const CliRun uploaded =
        cluster.cli(user, {u"dataset"_s, u"upload"_s, source, u"--name"_s, u"small"_s});
    QVERIFY2(uploaded.exitCode == 0, qPrintable(uploaded.out + uploaded.err));
    // Killed at once after the answer: what was answered must be recorded and readable after a
    // restart (a SIGKILL keeps the page cache, so this shows the recording, not the fsyncs).
    QVERIFY(cluster.killServer());
    QDir packs(cluster.path(u"server/packs"_s));
    QVERIFY2(!packs.entryList({u"*.pack"_s}, QDir::Files).isEmpty(), "no pack was written");
    QVERIFY2(!QFile::exists(cluster.path(u"server/blobs/"_s)
                            + sha256Hex(files.first()).left(2) + u'/'
                            + sha256Hex(files.first())),
             "a batched file was stored as a file of its own");
    // What a crash between a pack's sync and its transaction would leave, two hours ago; and
    // the batches' packs, made to look as old.
    const QString orphan = packs.filePath(u"0123456789abcdef0123456789abcdef.pack"_s);
    QVERIFY(writeFile(orphan, "bytes no blob refers to"));
    const QDateTime twoHoursAgo = QDateTime::currentDateTime().addSecs(-7200);
    for (const QString &name : packs.entryList({u"*.pack"_s}, QDir::Files)) {
        QFile pack(packs.filePath(name));
        QVERIFY(pack.open(QIODevice::ReadWrite)
                && pack.setFileTime(twoHoursAgo, QFileDevice::FileModificationTime));
    }
    QVERIFY2(cluster.restartServer(), qPrintable(cluster.serverLog()));
    QVERIFY2(!QFile::exists(orphan), "an unreferenced old pack was kept");

    const QString dest = cluster.path(u"small-copy"_s);
    const CliRun downloaded = cluster.cli(
        user, {u"dataset"_s, u"download"_s, u"small"_s, u"--dest"_s, dest});
    QVERIFY2(downloaded.exitCode == 0, qPrintable(downloaded.out + downloaded.err));
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        QFile copy(dest + u'/' + it.key());
        QVERIFY2(copy.open(QIODevice::ReadOnly), qPrintable(copy.fileName()));
        QVERIFY2(copy.readAll() == it.value(), qPrintable(it.key() + u" differs"_s));
    }
    QVERIFY(cluster.killServer());
    const QString bad = unverifiedBlob(cluster);
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
}

qint64 tst_CrashServer::msUntilAnswer(ClusterHarness &cluster, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    const QList<QSslCertificate> ca = QSslCertificate::fromPath(cluster.caCert());
    const quint16 port = quint16(QUrl(cluster.serverUrl()).port());
    while (timer.elapsed() < timeoutMs) {
        HttpsClient client(port, ca);
        if (client.call("GET", "/v1/version", {}, {}, "application/json", timeoutMs).status == 200)
            return timer.elapsed();
        QTest::qWait(50);
    }
    return -1;
}

void tst_CrashServer::killedServerLosesNothing()
{
    const quint32 seed = qEnvironmentVariableIsSet("DDL_CRASH_SEED")
                             ? qgetenv("DDL_CRASH_SEED").toUInt()
                             : QRandomGenerator::global()->generate();
    const int kills = qEnvironmentVariableIntValue("DDL_CRASH_KILLS") > 0
                          ? qEnvironmentVariableIntValue("DDL_CRASH_KILLS")
                          : 22;
    qInfo("DDL_CRASH_SEED=%u, %d kills", seed, kills);
    QRandomGenerator random(seed);

    ClusterHarness cluster;
    QVERIFY2(cluster.startServer(), qPrintable(cluster.serverLog()));
    QVERIFY(cluster.startNamedWorker(u"w1"_s, {u"--slots"_s, u"4"_s}));
    QVERIFY(pollUntil([&] { return cluster.serverLog().contains(u"enrolled from"_s); }, 15000));
    const QString user = u"alice"_s;
    QVERIFY(cluster.registerAndLogin(user, u"alice-password"_s));

    const QString paiRepo = cluster.makeRepo(u"pai"_s, {{u"README.md"_s, "crash test\n"}});
    // The DDL job's task.yaml and datasets live in the repository (ddlcli finds the root from the
    // task.yaml) but are ignored by git, so that the tree stays clean.
    const QString ddlRepo = cluster.makeRepo(
        u"ddl"_s, {{u"main.py"_s, mainPy()}, {u".gitignore"_s, "configs/\ndatasets/\n"}});
    QVERIFY(!paiRepo.isEmpty() && !ddlRepo.isEmpty());

    SubmissionStream pai(cluster, user, paiRepo, u"pai"_s, [&](const QString &name) {
        const QJsonObject role{{u"name"_s, u"worker"_s},       {u"taskNumber"_s, 1},
                               {u"cpuNumber"_s, 1},            {u"memoryMB"_s, 256},
                               {u"gpuNumber"_s, 0},
                               {u"command"_s, QString(u"sleep 2; echo done-"_s + name)}};
        const QJsonObject job{{u"jobName"_s, name},
                              {u"image"_s, u"ubuntu"_s},
                              {u"retryCount"_s, 5},
                              {u"taskRoles"_s, QJsonArray{role}}};
        const QString path = cluster.path(u"configs/"_s + name + u".json"_s);
        writeFile(path, QJsonDocument(job).toJson());
        return std::pair{path, u"--job_config="_s};
    });
    // A fresh dataset after every accepted DDL job, so every DDL submission uploads; a cut
    // upload is tried again with the same dataset (and a new job name).
    int datasetIndex = 0;
    const auto datasetDir = [&]() -> QString {
        return ddlRepo + u"/datasets/%1"_s.arg(datasetIndex);
    };
    QVERIFY(writeFile(datasetDir() + u"/data.bin"_s, randomBytes(random, DatasetBytes)));
    SubmissionStream ddl(cluster, user, ddlRepo, u"ddl"_s, [&](const QString &name) {
        const QString path = ddlRepo + u"/configs/"_s + name + u".yaml"_s;
        writeFile(path, "job_data:\n  job_name: " + name.toUtf8() + "\n  dataset:\n"
                        "    dataset_location: " + datasetDir().toUtf8() + "\n"
                        "  worker_required: 1\n  retry_count: 5\n");
        return std::pair{path, u"--task_config="_s};
    });
    ddl.onFinished = [&](bool accepted) {
        if (!accepted)
            return;
        QDir(datasetDir()).removeRecursively();
        ++datasetIndex;
        writeFile(datasetDir() + u"/data.bin"_s, randomBytes(random, DatasetBytes));
    };

    QHash<QString, UploadRow> partial; // by sha256: the furthest cut upload seen
    qint64 slowestAnswerMs = 0;
    int midUploadKills = 0;
    for (int kill = 0; kill < kills; ++kill) {
        pai.kick();
        ddl.kick();
        if (kill % 4 == 3) {
            // Aim at an upload in flight: wait for one that has bytes but is not complete.
            pollUntil(
                [&] {
                    for (const UploadRow &row : uploads(cluster)) {
                        if (row.offset > 0 && row.offset < row.size)
                            return true;
                    }
                    return false;
                },
                8000,
                {},
                30);
        } else {
            QTest::qWait(400 + int(random.bounded(2100)));
        }
        QVERIFY(cluster.killServer());
        // What survived the crash: the uploads the store remembers.
        for (const UploadRow &row : uploads(cluster)) {
            const QFileInfo part(cluster.path(u"server/uploads/"_s + row.id + u".part"_s));
            // Killed between moving a finished upload's bytes into place and forgetting the
            // upload: the blob is whole, and the server finishes the upload when next asked.
            const bool finishedInPlace = row.offset == row.size
                                         && QFileInfo::exists(cluster.path(
                                             u"server/blobs/"_s + row.sha256.left(2) + u'/'
                                             + row.sha256));
            QVERIFY2(row.offset == 0 || part.size() >= row.offset || finishedInPlace,
                     qPrintable(u"upload %1 records offset %2 but its part file has %3 bytes"_s
                                    .arg(row.id).arg(row.offset).arg(part.size())));
            if (row.offset > 0 && row.offset < row.size) {
                const UploadRow before = partial.value(row.sha256);
                QVERIFY2(before.id.isEmpty() || (before.id == row.id && row.offset >= before.offset),
                         qPrintable(u"the upload of %1 restarted: %2 at %3, then %4 at %5"_s.arg(
                             row.sha256, before.id, QString::number(before.offset), row.id,
                             QString::number(row.offset))));
                partial.insert(row.sha256, row);
                midUploadKills += kill % 4 == 3 ? 1 : 0;
            }
        }
        QElapsedTimer down;
        down.start();
        QVERIFY2(cluster.restartServer(), qPrintable(cluster.serverLog().right(3000)));
        const qint64 answerMs = msUntilAnswer(cluster, 5000);
        QVERIFY2(answerMs >= 0, qPrintable(u"no answer within 5 s of restart %1:\n"_s.arg(kill + 1)
                                           + cluster.serverLog().right(3000)));
        slowestAnswerMs = std::max(slowestAnswerMs, down.elapsed());
        const QString broken = unverifiedBlob(cluster);
        QVERIFY2(broken.isEmpty(), qPrintable(u"a blob that is not whole is visible: "_s + broken));
    }
    pai.stop();
    ddl.stop();
    QVERIFY(pollUntil([&] { return !pai.running() && !ddl.running(); }, 120000));
    qInfo("%d kills (%d aimed mid-upload, %lld cut uploads seen); the server answered at most "
          "%lld ms after a restart; %lld OpenPAI and %lld DDL submissions accepted, %lld + %lld "
          "cut",
          kills, midUploadKills, qint64(partial.size()), slowestAnswerMs,
          qint64(pai.accepted().size()), qint64(ddl.accepted().size()),
          qint64(pai.uncertain().size()), qint64(ddl.uncertain().size()));
    QVERIFY2(pai.accepted().size() >= kills / 4, qPrintable(pai.lastFailure()));
    QVERIFY2(ddl.accepted().size() >= 2, qPrintable(ddl.lastFailure()));

    // Every job whose submission got its 201 exists exactly once; no job exists twice.
    QMap<QString, QString> accepted = pai.accepted();
    accepted.insert(ddl.accepted());
    QList<QJsonObject> jobs = listJobs(cluster, user);
    QMap<QString, int> byName;
    QSet<QString> uuids;
    for (const QJsonObject &job : jobs) {
        const QString name = job.value(u"name"_s).toString();
        ++byName[name];
        uuids.insert(job.value(u"uuid"_s).toString());
        QVERIFY2(accepted.contains(name) || pai.uncertain().contains(name)
                     || ddl.uncertain().contains(name),
                 qPrintable(u"a job nobody submitted: "_s + name));
    }
    for (auto it = byName.cbegin(); it != byName.cend(); ++it)
        QVERIFY2(it.value() == 1, qPrintable(u"job %1 exists %2 times"_s.arg(it.key()).arg(it.value())));
    for (auto it = accepted.cbegin(); it != accepted.cend(); ++it)
        QVERIFY2(uuids.contains(it.value()),
                 qPrintable(u"job %1 (%2) got its 201 and is gone"_s.arg(it.key(), it.value())));

    // Every job ends, and ends well: its tasks reattached after a restart or were retried.
    const PollResult allFinal = pollUntil(
        [&] {
            jobs = listJobs(cluster, user);
            return std::all_of(jobs.cbegin(), jobs.cend(), [](const QJsonObject &job) {
                return ddl::isFinalState(job.value(u"state"_s).toString());
            });
        },
        120000,
        {},
        500);
    int retried = 0;
    for (const QJsonObject &job : jobs) {
        const QString uuid = job.value(u"uuid"_s).toString();
        const QString state = job.value(u"state"_s).toString();
        if (job.value(u"attempt"_s).toInt() > 1) {
            ++retried;
            // Why: what the failed attempts' tasks say.
            for (const QJsonValue &task : cluster.job(user, uuid).value(u"tasks"_s).toArray()) {
                if (task.toObject().value(u"state"_s).toString() != u"SUCCEEDED"_s)
                    qInfo("retried %s: attempt %d: %s", qUtf8Printable(job.value(u"name"_s).toString()),
                          task.toObject().value(u"attempt"_s).toInt(),
                          qUtf8Printable(task.toObject().value(u"message"_s).toString()));
            }
        }
        QVERIFY2(state == u"SUCCEEDED"_s,
                 qPrintable(u"job %1 is %2 (all final: %3):\n%4\n--- worker ---\n%5"_s.arg(
                     job.value(u"name"_s).toString(),
                     state,
                     allFinal ? u"yes"_s : u"no"_s,
                     QString::fromUtf8(QJsonDocument(cluster.job(user, uuid)).toJson()),
                     cluster.workerLog(u"w1"_s).right(3000))));
    }
    qInfo("%lld jobs, all SUCCEEDED; %d needed a retry", qint64(jobs.size()), retried);

    // The cut uploads resumed: their blobs are whole and in the store.
    int resumed = 0;
    for (const UploadRow &row : std::as_const(partial))
        resumed += QFile::exists(cluster.path(u"server/blobs/"_s + row.sha256.left(2) + u'/'
                                              + row.sha256)) ? 1 : 0;
    qInfo("%d cut uploads resumed into whole blobs", resumed);
    QVERIFY2(resumed >= 1, "no upload was cut and resumed; the kills missed every upload");
    QVERIFY(unverifiedBlob(cluster).isEmpty());
}

QTEST_GUILESS_MAIN(tst_CrashServer)
#include "tst_crash_server.moc"
