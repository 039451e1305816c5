// The podman runtime's arguments for a task (what a container may see and use) and the image
// references it accepts; no podman needed. tests/e2e/tst_e2e_images runs real containers.
#include "container/podmanruntime.h"

#include <QTest>

using namespace Qt::StringLiterals;
using ddl::worker::ContainerSpec;
using ddl::worker::PodmanRuntime;

class tst_PodmanRuntime : public QObject
{
    Q_OBJECT

private slots:
    void imageReference_data();
    void imageReference();
    void arguments_data();
    void arguments();
    void environmentStaysOffTheCommandLine();
};

void tst_PodmanRuntime::imageReference_data()
{
    QTest::addColumn<QString>("image");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("name") << u"ubuntu"_s << true;
    QTest::newRow("tag") << u"python:3.11-slim"_s << true;
    QTest::newRow("registry and path") << u"docker.io/library/python:3.11"_s << true;
    QTest::newRow("local") << u"localhost/ddl-test:1"_s << true;
    QTest::newRow("digest") << u"localhost/x@sha256:"_s + QString(64, u'a') << true;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("an option") << u"--privileged"_s << false;
    QTest::newRow("short option") << u"-v/:/host"_s << false;
    QTest::newRow("space") << u"ubuntu --privileged"_s << false;
    QTest::newRow("shell") << u"ubuntu;rm"_s << false;
    QTest::newRow("newline") << u"ubuntu\nx"_s << false;
    QTest::newRow("too long") << QString(600, u'a') << false;
}

void tst_PodmanRuntime::imageReference()
{
    QFETCH(QString, image);
    QFETCH(bool, accepted);
    const auto checked = PodmanRuntime::checkImageReference(image);
    QCOMPARE(bool(checked), accepted);
    if (!accepted)
        QVERIFY2(checked.error().message.contains(u"not an image reference"_s),
                 qPrintable(checked.error().message));
}

static ContainerSpec taskSpec(bool network)
{
    ContainerSpec spec;
    spec.image = u"localhost/ddl-test:1"_s;
    spec.name = PodmanRuntime::containerName(17);
    spec.envFile = u"/w/tasks/17/container.env"_s;
    spec.sandbox.policy.network = network;
    spec.sandbox.readOnlyPaths = {u"/w/tasks/17/code"_s, u"/w/tasks/17/dataset"_s};
    spec.sandbox.writablePaths = {u"/w/tasks/17/output"_s};
    spec.sandbox.scratchDir = u"/w/tasks/17/scratch"_s;
    spec.sandbox.workingDir = u"/w/tasks/17/code"_s;
    spec.sandbox.shmBytes = 64 * 1024 * 1024;
    spec.cpuCores = {2, 3};
    spec.memoryBytes = 256 * 1024 * 1024;
    return spec;
}

void tst_PodmanRuntime::arguments_data()
{
    QTest::addColumn<bool>("network");
    QTest::addColumn<QStringList>("expected"); // each a run of arguments that must be there
    const QStringList common[] = {
        {u"run"_s, u"--rm"_s, u"--name"_s, u"ddl-task-17"_s},
        {u"--read-only"_s},
        {u"--cap-drop"_s, u"ALL"_s},
        {u"--security-opt"_s, u"no-new-privileges"_s},
        {u"--cpuset-cpus"_s, u"2,3"_s},
        {u"--memory"_s, u"268435456"_s},
        {u"--shm-size"_s, u"67108864"_s},
        {u"--pids-limit"_s, u"4096"_s},
        {u"--volume"_s, u"/w/tasks/17/code:/w/tasks/17/code:ro"_s},
        {u"--volume"_s, u"/w/tasks/17/dataset:/w/tasks/17/dataset:ro"_s},
        {u"--volume"_s, u"/w/tasks/17/output:/w/tasks/17/output:rw"_s},
        {u"--volume"_s, u"/w/tasks/17/scratch:/w/tasks/17/scratch:rw"_s},
        {u"--workdir"_s, u"/w/tasks/17/code"_s},
        {u"--env-file"_s, u"/w/tasks/17/container.env"_s},
        {u"--"_s, u"localhost/ddl-test:1"_s, u"python3"_s, u"-u"_s, u"runner.py"_s},
    };
    for (const bool network : {true, false}) {
        for (const QStringList &run : common)
            QTest::addRow("%s: %s", network ? "network" : "no network", qPrintable(run.join(u' ')))
                << network << run;
        QTest::addRow("%s: the network", network ? "network" : "no network")
            << network << QStringList{u"--network"_s, network ? u"host"_s : u"none"_s};
    }
}

void tst_PodmanRuntime::arguments()
{
    QFETCH(bool, network);
    QFETCH(QStringList, expected);
    const QStringList args =
        PodmanRuntime().runArguments(taskSpec(network), u"python3"_s, {u"-u"_s, u"runner.py"_s});
    const QString joined = u'\x1f' + args.join(u'\x1f') + u'\x1f';
    QVERIFY2(joined.contains(u'\x1f' + expected.join(u'\x1f') + u'\x1f'),
             qPrintable(args.join(u' ')));
    // Nothing of the worker's folders beyond the task's own is bound.
    for (const QString &arg : args) {
        if (arg.contains(u':') && arg.startsWith(u'/'))
            QVERIFY2(arg.startsWith(u"/w/tasks/17/"_s), qPrintable(arg));
    }
}

void tst_PodmanRuntime::environmentStaysOffTheCommandLine()
{
    const QStringList args =
        PodmanRuntime().runArguments(taskSpec(true), u"python3"_s, {u"-u"_s, u"runner.py"_s});
    QVERIFY(!args.contains(u"--env"_s));
    QVERIFY(!args.contains(u"-e"_s));
}

QTEST_GUILESS_MAIN(tst_PodmanRuntime)
#include "tst_podmanruntime.moc"
