// A worker run the way a GPU owner should run it: as an unprivileged user (issue 17). Its tasks
// run as that user, in the bubblewrap sandbox and, for a job naming a ddl:// image, in rootless
// podman (issue 12: the image is loaded into the user's own podman store); ddl-worker refuses
// to run as root unless told. Real ddl-server, ddl-worker (as the user) and ddlcli processes.
#include "clusterharness.h"
#include "prerequisite.h"
#include "testimage.h"
#include "unprivilegeduser.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {

const QString User = u"olga"_s;

// Writes what the task saw: its uid and its system.
const QByteArray MainPy = R"(import json, os
def main(dataset_dir, model_output_dir):
    seen = {"uid": os.getuid(), "os_release": open("/etc/os-release").read()}
    with open(os.path.join(model_output_dir, "seen.json"), "w") as f:
        json.dump(seen, f)
    print("task uid", os.getuid())
)";

} // namespace

class TestE2eRootless : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void refusesRootUnlessTold();
    void sandboxTaskRunsAsTheOwner();
    void imageTaskRunsInRootlessPodman();

private:
    QJsonObject runJob(const QString &name, const QString &image, QString *log);

    ClusterHarness m_cluster;
    UnprivilegedUser m_owner;
};

void TestE2eRootless::initTestCase()
{
    if (::geteuid() != 0)
        QSKIP("runs a worker as another, unprivileged user: needs root (CI runs as root)");
    const QString podman = QStandardPaths::findExecutable(u"podman"_s);
    DDL_REQUIRE_PREREQUISITE(!podman.isEmpty() &&
                                 !QStandardPaths::findExecutable(u"newuidmap"_s).isEmpty(),
                             u"podman and uidmap are not installed (scripts/install-deps.sh "
                             "installs them)"_s);
    m_owner = ensureUnprivilegedUser(u"ddl-owner-test"_s);
    QVERIFY2(m_owner.isValid(), qPrintable(m_owner.problem));
    const QString built = ensureTestImage(podman);
    QVERIFY2(built.isEmpty(), qPrintable(built));

    QVERIFY2(m_cluster.startServer(), qPrintable(m_cluster.serverLog()));
    QVERIFY(m_cluster.registerAndLogin(User, u"correct horse"_s));
    const CliRun pushed = m_cluster.cli(User, {u"image"_s, u"push"_s, TestImage}, {}, {}, 300000);
    QVERIFY2(pushed.exitCode == 0, qPrintable(pushed.out + pushed.err));
    QVERIFY(QDir().mkpath(m_cluster.path(u"repos/data"_s)));
    QFile sample(m_cluster.path(u"repos/data/x.csv"_s));
    QVERIFY(sample.open(QIODevice::WriteOnly));
    sample.write("x\n1\n");
    sample.close();
    QVERIFY(m_cluster.startNamedWorkerAs(
        u"owner"_s, m_owner, {u"--slots"_s, u"2"_s, u"--container-runtime"_s, u"podman"_s}));
}

void TestE2eRootless::refusesRootUnlessTold()
{
    QProcess worker;
    worker.start(ClusterHarness::binary(u"ddl-worker"_s),
                 {u"--server"_s,
                  m_cluster.serverUrl(),
                  u"--ca-cert"_s,
                  m_cluster.caCert(),
                  u"--work-dir"_s,
                  m_cluster.path(u"root-worker"_s)});
    QVERIFY(worker.waitForFinished(10000));
    QCOMPARE(worker.exitCode(), 2);
    const QString said = QString::fromUtf8(worker.readAllStandardError());
    QVERIFY2(said.contains(u"refusing to run as root"_s) && said.contains(u"--allow-root"_s) &&
                 said.contains(u"unprivileged user"_s),
             qPrintable(said));
    QVERIFY(!QDir(m_cluster.path(u"root-worker"_s)).exists()); // nothing was started
}

QJsonObject TestE2eRootless::runJob(const QString &name, const QString &image, QString *log)
{
    const QString repo = m_cluster.makeRepo(
        name, {{u"main.py"_s, MainPy}, {u"task.yaml"_s, ddlTaskYaml(name, image)}});
    const CliRun submitted = m_cluster.cli(User, {u"submit"_s, u"--task_config=task.yaml"_s}, repo);
    const QString uuid = jobUuidOf(submitted.out);
    if (uuid.isEmpty()) {
        *log = submitted.out + submitted.err;
        return {};
    }
    const QString state = m_cluster.waitForJobEnd(User, uuid, 180000);
    *log = m_cluster.cli(User, {u"logs"_s, u"--job_uuid="_s + uuid}).out;
    if (state != "SUCCEEDED"_L1) {
        *log = state + u'\n' + *log + u"\n--- worker ---\n"_s +
               m_cluster.workerLog(u"owner"_s).right(3000);
        return {};
    }
    const QString dest = m_cluster.path(name + u"-out"_s);
    m_cluster.cli(User, {u"download"_s, u"--job_uuid="_s + uuid, u"--dest="_s + dest});
    QFile seen(dest + u"/seen.json"_s);
    if (!seen.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(seen.readAll()).object();
}

void TestE2eRootless::sandboxTaskRunsAsTheOwner()
{
    QString log;
    const QJsonObject seen = runJob(u"in-sandbox"_s, {}, &log);
    QVERIFY2(!seen.isEmpty(), qPrintable(log));
    QCOMPARE(seen.value(u"uid"_s).toInteger(), qint64(m_owner.uid));
    QVERIFY2(log.contains(u"task uid %1"_s.arg(m_owner.uid)), qPrintable(log));
    QVERIFY2(!log.contains(u"container: podman"_s), qPrintable(log));
}

void TestE2eRootless::imageTaskRunsInRootlessPodman()
{
    QString log;
    const QJsonObject seen = runJob(u"in-image"_s, u"ddl://ddl-test"_s, &log);
    QVERIFY2(!seen.isEmpty(), qPrintable(log));
    QVERIFY2(log.contains(u"container: podman"_s), qPrintable(log));
    QVERIFY2(seen.value(u"os_release"_s).toString().contains(u"ID=ddl-test"_s),
             qPrintable(seen.value(u"os_release"_s).toString()));
    // --userns=keep-id: inside, the task is the owner, as it is in the sandbox.
    QCOMPARE(seen.value(u"uid"_s).toInteger(), qint64(m_owner.uid));
    // The image went into the owner's podman store, not root's.
    QProcess images;
    images.start(u"runuser"_s,
                 {u"-u"_s,
                  m_owner.name,
                  u"--"_s,
                  u"env"_s,
                  u"XDG_RUNTIME_DIR="_s + m_cluster.path(u"workers/owner-run"_s),
                  u"podman"_s,
                  u"images"_s,
                  u"--format"_s,
                  u"{{.Id}}"_s});
    QVERIFY(images.waitForFinished(60000));
    QVERIFY2(!images.readAllStandardOutput().trimmed().isEmpty(),
             qPrintable(QString::fromLocal8Bit(images.readAllStandardError())));
}

QTEST_GUILESS_MAIN(TestE2eRootless)
#include "tst_e2e_rootless.moc"
