// A task's checkpoint folder on its way to the server and back (CheckpointSync), against the real
// ddl-server binary (a process over TLS on loopback) with an enrolled worker's credentials, as
// the task runner uses it: only changed files travel, symbolic links stay behind, a folder over
// the lease's limit is not sent and the log says why, and a next attempt gets writable copies
// that leave the worker's cache untouched.
#include "api/apiclient.h"
#include "cache/blobcache.h"
#include "runner/checkpointsync.h"
#include "serverprocess.h"
#include "serveruser.h"
#include "wire/tasklease.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QDirIterator>
#include <QJsonArray>
#include <QProcess>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ddl::worker;
using ddl::TaskLease;

#define VERIFY_OK(result) QVERIFY2((result), (result) ? "" : qPrintable((result).error().message))

namespace {

bool writeFile(const QString &path, const QByteArray &content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(content) == content.size();
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString sha256Of(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

// 1 MiB that a hash cache or the server could not guess.
QByteArray weights()
{
    QByteArray bytes;
    QByteArray block = "weights";
    while (bytes.size() < 1024 * 1024) {
        block = QCryptographicHash::hash(block, QCryptographicHash::Sha256);
        bytes += block;
    }
    return bytes;
}

} // namespace

class tst_CheckpointSync : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void onlyChangedFilesTravel();
    void folderOverTheLimitIsNotSent();
    void nextAttemptGetsWritableCopies();
    void swappedLinksAndFifosNeverTravel();
    void cancelStopsTheFinalUpload();

private:
    // One last upload, as after the task's process ended; the lines it logged.
    QStringList finalUpload(const TaskLease &lease, const QString &folder);
    QStringList m_lines;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ServerProcess> m_server;
    std::unique_ptr<ServerUser> m_user;
    std::unique_ptr<ddl::ApiClient> m_worker;
    QString m_uuid;
    TaskLease m_lease;
    QString m_folder;
};

void tst_CheckpointSync::initTestCase()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_server = std::make_unique<ServerProcess>(m_dir->filePath(u"server"_s));
    const QString started = m_server->start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    m_user = std::make_unique<ServerUser>(
        m_server->url(), m_server->caFile(), m_dir->filePath(u"uploads"_s));
    VERIFY_OK(m_user->registerAndLogin(u"alice@example.org"_s));
    // The task is leased, never run: any blob serves as its code.
    const ddl::Result<QString> package = m_user->upload("not really a package");
    VERIFY_OK(package);
    const ddl::Result<ddl::ServerTrust> trust = ddl::ServerTrust::fromCaFile(m_server->caFile());
    VERIFY_OK(trust);
    m_worker = std::make_unique<ddl::ApiClient>(m_server->url(), *trust);
    const ddl::Result<ddl::ApiResponse> enrolled = m_worker->postJsonSync(
        u"/v1/workers/enroll"_s,
        {{u"enroll_token"_s, ServerProcess::createEnrollToken(m_server->dataDir())},
         {u"name"_s, u"checkpoint-worker"_s},
         {u"hostname"_s, QSysInfo::machineHostName()},
         {u"cpus"_s, 4},
         {u"memory_mb"_s, 8192},
         {u"gpus"_s, 0},
         {u"slots"_s, 4}});
    VERIFY_OK(enrolled);
    m_worker->setBearerToken(enrolled->json().value(u"worker_token"_s).toString());
    const ddl::Result<QString> uuid = m_user->submit(jobSpec(u"ddl"_s, u"ckpt"_s), *package);
    VERIFY_OK(uuid);
    m_uuid = *uuid;
    QElapsedTimer clock;
    clock.start();
    while (m_lease.taskId == 0 && clock.elapsed() < 10000) {
        const ddl::Result<ddl::ApiResponse> answer =
            m_worker->postJsonSync(u"/v1/workers/lease"_s, {});
        VERIFY_OK(answer);
        const QJsonArray tasks = answer->json().value(u"tasks"_s).toArray();
        if (!tasks.isEmpty()) {
            const ddl::Result<TaskLease> lease = TaskLease::fromJson(tasks.first().toObject());
            VERIFY_OK(lease);
            m_lease = *lease;
        } else {
            QTest::qWait(50);
        }
    }
    QVERIFY2(m_lease.taskId != 0, "the task was never leased");
    QVERIFY(m_lease.checkpointManifest.isEmpty()); // a first attempt has none
    m_folder = m_dir->filePath(u"work/tasks/1/checkpoint"_s);
    QVERIFY(QDir().mkpath(m_folder));
}

void tst_CheckpointSync::cleanupTestCase()
{
    if (m_server && QTest::currentTestFailed())
        qWarning("ddl-server's log:\n%s", qUtf8Printable(m_server->log()));
}

QStringList tst_CheckpointSync::finalUpload(const TaskLease &lease, const QString &folder)
{
    QStringList lines;
    CheckpointSync sync(m_worker.get(),
                        lease,
                        folder,
                        m_dir->filePath(u"work/hashes"_s),
                        m_dir->filePath(u"work/staging"_s),
                        [&lines](const QString &line) { lines << line; });
    bool done = false;
    sync.finalUpload(60000, [&done] { done = true; });
    QElapsedTimer clock;
    clock.start();
    while (!done && clock.elapsed() < 60000)
        QTest::qWait(20);
    if (!done)
        lines << u"(the upload never ended)"_s;
    return lines;
}

void tst_CheckpointSync::onlyChangedFilesTravel()
{
    const QByteArray big = weights();
    QVERIFY(writeFile(m_folder + u"/model/weights.bin"_s, big));
    QVERIFY(writeFile(m_folder + u"/step.txt"_s, "1"));
    // A link to a file outside the folder: what it points at never reaches the server.
    const QString secret = m_dir->filePath(u"owners-secret.txt"_s);
    QVERIFY(writeFile(secret, "the owner's secret"));
    QVERIFY(QFile::link(secret, m_folder + u"/secret"_s));

    const qint64 total = big.size() + 1;
    QStringList lines = finalUpload(m_lease, m_folder);
    QVERIFY2(lines.contains(u"checkpoint saved: 2 file(s), %1 bytes (%1 bytes sent)"_s.arg(total)),
             qPrintable(lines.join(u'\n')));
    QVERIFY2(lines.contains(u"checkpoint: secret is left out: a symbolic link"_s),
             qPrintable(lines.join(u'\n')));
    QJsonArray checkpoints = m_user->job(m_uuid).value(u"checkpoints"_s).toArray();
    QCOMPARE(checkpoints.size(), qsizetype(1));
    QCOMPARE(checkpoints.first().toObject().value(u"files"_s).toInt(), 2);
    const QString first = checkpoints.first().toObject().value(u"manifest_sha256"_s).toString();

    // One byte changed: one byte travels.
    QVERIFY(writeFile(m_folder + u"/step.txt"_s, "2"));
    lines = finalUpload(m_lease, m_folder);
    QVERIFY2(lines.contains(u"checkpoint saved: 2 file(s), %1 bytes (1 bytes sent)"_s.arg(total)),
             qPrintable(lines.join(u'\n')));
    checkpoints = m_user->job(m_uuid).value(u"checkpoints"_s).toArray();
    const QString second = checkpoints.first().toObject().value(u"manifest_sha256"_s).toString();
    QVERIFY(second != first);

    // Nothing changed since the checkpoint the task started from: nothing is recorded again.
    TaskLease resumed = m_lease;
    resumed.checkpointManifest = second;
    resumed.checkpointAttempt = 1;
    lines = finalUpload(resumed, m_folder);
    QVERIFY2(lines.filter(u"checkpoint saved"_s).isEmpty(), qPrintable(lines.join(u'\n')));
}

void tst_CheckpointSync::folderOverTheLimitIsNotSent()
{
    TaskLease small = m_lease;
    small.checkpointMaxBytes = 1000;
    const QStringList lines = finalUpload(small, m_folder).filter(u"not uploaded"_s);
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().startsWith(
                 u"checkpoint not uploaded: DDL_CHECKPOINT_DIR holds %1 bytes "
                 u"in 2 file(s), more than the 1000 bytes"_s.arg(weights().size() + 1)) &&
                 lines.first().contains(u"checkpoint_max_bytes"_s),
             qPrintable(lines.join(u'\n')));
}

void tst_CheckpointSync::nextAttemptGetsWritableCopies()
{
    // What the server recorded last is what a next attempt's lease names.
    const QJsonArray checkpoints = m_user->job(m_uuid).value(u"checkpoints"_s).toArray();
    QCOMPARE(checkpoints.size(), qsizetype(1));
    TaskLease next = m_lease;
    next.checkpointManifest = checkpoints.first().toObject().value(u"manifest_sha256"_s).toString();
    next.checkpointAttempt = 1;
    BlobCache cache(m_worker.get(), m_dir->filePath(u"work/cache"_s));
    const QString folder = m_dir->filePath(u"work/tasks/2/checkpoint"_s);
    QVERIFY(QDir().mkpath(folder));
    QStringList lines;
    CheckpointSync sync(m_worker.get(),
                        next,
                        folder,
                        m_dir->filePath(u"work/hashes-2"_s),
                        m_dir->filePath(u"work/staging-2"_s),
                        [&lines](const QString &line) { lines << line; });
    std::optional<ddl::Status> restored;
    sync.restore(&cache, [&restored](const ddl::Status &status) { restored = status; });
    QTRY_VERIFY_WITH_TIMEOUT(restored.has_value(), 30000);
    VERIFY_OK(*restored);
    QVERIFY2(lines.contains(u"DDL_CHECKPOINT_DIR holds the checkpoint of attempt 1: 2 file(s), %1 "
                            u"bytes"_s.arg(weights().size() + 1)),
             qPrintable(lines.join(u'\n')));
    QCOMPARE(readFile(folder + u"/model/weights.bin"_s), weights());
    QCOMPARE(readFile(folder + u"/step.txt"_s), QByteArray("2"));
    QVERIFY(!QFileInfo::exists(folder + u"/secret"_s));
    // The task may change its copies; the cached blob stays as it was.
    QVERIFY(QFileInfo(folder + u"/step.txt"_s).isWritable());
    QVERIFY(writeFile(folder + u"/step.txt"_s, "3"));
    QCOMPARE(readFile(cache.blobPath(sha256Of("2"))), QByteArray("2"));
}

void tst_CheckpointSync::swappedLinksAndFifosNeverTravel()
{
    // The worker's own folder, which a task must never get a file of uploaded.
    const QString workerDir = m_dir->filePath(u"worker-own"_s);
    const QByteArray secret = "{\"worker_token\": \"the-worker-token-0123456789\"}";
    QVERIFY(writeFile(workerDir + u"/worker.json"_s, secret));
    const QString folder = m_dir->filePath(u"work/tasks/3/checkpoint"_s);
    QVERIFY(writeFile(folder + u"/state/worker.json"_s, "the task's own state"));
    QVERIFY(QFile::link(workerDir, folder + u"/link"_s));
    QVERIFY(::mkfifo(QFile::encodeName(folder + u"/pipe"_s).constData(), 0600) == 0);

    // The task: swaps its folder state for the link to the worker's folder and back, as fast
    // as it can, while the uploads run (renameat2 RENAME_EXCHANGE).
    QProcess task;
    task.setWorkingDirectory(folder);
    task.start(u"python3"_s,
               {u"-c"_s,
                u"import ctypes, time\n"
                u"libc = ctypes.CDLL(None, use_errno=True)\n"
                u"end = time.time() + 120\n"
                u"while time.time() < end:\n"
                u"    if libc.renameat2(-100, b'state', -100, b'link', 2) != 0:\n"
                u"        raise SystemExit('renameat2: %d' % ctypes.get_errno())\n"_s});
    QVERIFY(task.waitForStarted());
    QStringList lines;
    for (int round = 0; round < 100 && task.state() == QProcess::Running; ++round)
        lines += finalUpload(m_lease, folder);
    const bool swapped = task.state() == QProcess::Running;
    task.kill();
    task.waitForFinished();
    QVERIFY2(swapped, task.readAllStandardError().constData());
    // Every upload ended (the FIFO blocked none) and said what it left out.
    QVERIFY2(!lines.contains(u"(the upload never ended)"_s), qPrintable(lines.join(u'\n')));
    QVERIFY2(lines.contains(u"checkpoint: pipe is left out: not a regular file"_s),
             qPrintable(lines.join(u'\n')));
    QVERIFY2(!lines.filter(u"checkpoint saved"_s).isEmpty(), qPrintable(lines.join(u'\n')));
    // The server holds no blob with the worker's file in it.
    const QString digest = sha256Of(secret);
    QDirIterator stored(m_server->dataDir(), QDir::Files, QDirIterator::Subdirectories);
    while (stored.hasNext()) {
        const QString path = stored.next();
        QVERIFY2(!path.contains(digest), qPrintable(path));
        QVERIFY2(!readFile(path).contains("the-worker-token"), qPrintable(path));
    }
}

void tst_CheckpointSync::cancelStopsTheFinalUpload()
{
    // A failed task's last upload may take minutes; the user's cancel ends it at once, and
    // nothing is recorded after it.
    const QString folder = m_dir->filePath(u"work/tasks/4/checkpoint"_s);
    QVERIFY(writeFile(folder + u"/late.bin"_s, weights() + "late"));
    const auto latest = [this] {
        return m_user->job(m_uuid).value(u"checkpoints"_s).toArray().first().toObject().value(
            u"manifest_sha256"_s).toString();
    };
    const QString before = latest();
    QVERIFY(!before.isEmpty());
    QStringList lines;
    CheckpointSync sync(m_worker.get(),
                        m_lease,
                        folder,
                        m_dir->filePath(u"work/hashes-4"_s),
                        m_dir->filePath(u"work/staging-4"_s),
                        [&lines](const QString &line) { lines << line; });
    bool done = false;
    sync.finalUpload(120000, [&done] { done = true; });
    QVERIFY(!done);
    sync.abortFinal();
    QVERIFY(done);
    QTest::qWait(2000);
    QVERIFY2(lines.filter(u"checkpoint saved"_s).isEmpty(), qPrintable(lines.join(u'\n')));
    QCOMPARE(latest(), before);
}

QTEST_GUILESS_MAIN(tst_CheckpointSync)
#include "tst_checkpointsync.moc"
