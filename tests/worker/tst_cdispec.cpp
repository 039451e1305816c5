// GPUs in containers through CDI, without a GPU: the spec the worker writes from a driver's
// device nodes and libraries (a fake driver folder here), and a real podman container given one
// fake GPU through it (fakeGpuDeviceReachesTheContainer: /dev/null's device numbers standing in
// for /dev/nvidiaN, a file standing in for libcuda), which sees that GPU's node and the driver's
// file, not the other GPU's node, and CUDA_VISIBLE_DEVICES numbered from 0.
#include "container/cdispec.h"
#include "container/podmanruntime.h"
#include "prerequisite.h"
#include "testimage.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

class tst_CdiSpec : public QObject
{
    Q_OBJECT

private slots:
    void discoversTheDriver();
    void specGivesEachGpuItsNode();
    void fakeGpuDeviceReachesTheContainer();
};

static QByteArray ldconfigOutput(const QString &libDir)
{
    return (u"1234 libs found in cache `/etc/ld.so.cache'\n"
            "\tlibnvidia-ml.so.1 (libc6,x86-64) => "_s + libDir + u"/libnvidia-ml.so.1\n"
            "\tlibcuda.so.1 (libc6,x86-64) => "_s + libDir + u"/libcuda.so.1\n"
            "\tlibcuda.so.1 (libc6) => /usr/lib/i386-linux-gnu/libcuda.so.1\n"
            "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n"_s)
        .toUtf8();
}

static bool touch(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write("fake driver file\n") > 0;
}

void tst_CdiSpec::discoversTheDriver()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(u"dev"_s) && QDir(dir.path()).mkpath(u"drv"_s));
    for (const QString &name : {u"nvidia0"_s, u"nvidia1"_s, u"nvidiactl"_s, u"nvidia-uvm"_s,
                                u"null"_s, u"nvidia-caps"_s})
        QVERIFY(touch(dir.filePath(u"dev/"_s + name)));
    const QString drv = dir.filePath(u"drv"_s);
    QVERIFY(touch(drv + u"/libcuda.so.1"_s) && touch(drv + u"/libnvidia-ml.so.1"_s));
    const NvidiaDriverFiles driver =
        CdiSpec::discover(dir.filePath(u"dev"_s), ldconfigOutput(drv), {});
    QCOMPARE(driver.gpuNodes.keys(), (QList<int>{0, 1}));
    QCOMPARE(driver.gpuNodes.value(1), dir.filePath(u"dev/nvidia1"_s));
    QCOMPARE(driver.controlNodes,
             (QStringList{dir.filePath(u"dev/nvidiactl"_s), dir.filePath(u"dev/nvidia-uvm"_s)}));
    // The 64-bit libraries of the driver only: not libz, not the i386 copy.
    QCOMPARE(driver.files,
             (QStringList{drv + u"/libnvidia-ml.so.1"_s, drv + u"/libcuda.so.1"_s}));
    // A library the cache names but that is gone is left out (its mount would fail every task).
    QVERIFY(QFile::remove(drv + u"/libnvidia-ml.so.1"_s));
    QCOMPARE(CdiSpec::discover(dir.filePath(u"dev"_s), ldconfigOutput(drv), {}).files,
             QStringList{drv + u"/libcuda.so.1"_s});

    // No GPU node: nothing to give a container.
    QTemporaryDir empty;
    QVERIFY(CdiSpec::discover(empty.path(), ldconfigOutput(drv), {}).isEmpty());
}

void tst_CdiSpec::specGivesEachGpuItsNode()
{
    NvidiaDriverFiles driver;
    driver.gpuNodes = {{0, u"/host/dev/nvidia0"_s}, {3, u"/host/dev/nvidia3"_s}};
    driver.controlNodes = {u"/host/dev/nvidiactl"_s};
    driver.files = {u"/usr/lib/x86_64-linux-gnu/libcuda.so.1"_s};
    const QJsonObject spec = CdiSpec::make(driver);
    QCOMPARE(spec.value(u"kind"_s).toString(), u"ddl.nvidia.com/gpu"_s);
    const QJsonArray devices = spec.value(u"devices"_s).toArray();
    QCOMPARE(devices.size(), 2);
    const QJsonObject three = devices.at(1).toObject();
    QCOMPARE(three.value(u"name"_s).toString(), u"3"_s);
    const QJsonArray nodes =
        three.value(u"containerEdits"_s).toObject().value(u"deviceNodes"_s).toArray();
    QCOMPARE(nodes, (QJsonArray{QJsonObject{{u"path"_s, u"/dev/nvidia3"_s},
                                            {u"hostPath"_s, u"/host/dev/nvidia3"_s}}}));
    const QJsonObject common = spec.value(u"containerEdits"_s).toObject();
    QCOMPARE(common.value(u"deviceNodes"_s).toArray().size(), 1);
    const QJsonObject mount = common.value(u"mounts"_s).toArray().at(0).toObject();
    QCOMPARE(mount.value(u"containerPath"_s).toString(),
             u"/usr/lib/x86_64-linux-gnu/libcuda.so.1"_s);
    QVERIFY(mount.value(u"options"_s).toArray().contains(u"ro"_s));
    QCOMPARE(CdiSpec::deviceName(3), u"ddl.nvidia.com/gpu=3"_s);
}

void tst_CdiSpec::fakeGpuDeviceReachesTheContainer()
{
    if (::geteuid() != 0)
        QSKIP("making fake device nodes (mknod) and writing /var/run/cdi needs root");
    const QString podman = PodmanRuntime::defaultPodmanPath();
    DDL_REQUIRE_PREREQUISITE(!podman.isEmpty() && QFileInfo(podman).isExecutable() &&
                                 !QStandardPaths::findExecutable(u"runc"_s,
                                                                 {u"/usr/sbin"_s, u"/usr/bin"_s,
                                                                  u"/sbin"_s})
                                      .isEmpty(),
                             u"podman and runc are not installed (scripts/install-deps.sh installs "
                             "them)"_s);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(u"dev"_s) && QDir(dir.path()).mkpath(u"drv"_s));
    const dev_t null = makedev(1, 3);
    for (const char *name : {"nvidia0", "nvidia1", "nvidiactl"}) {
        const QByteArray path = dir.filePath(u"dev/"_s + QLatin1StringView(name)).toLocal8Bit();
        QVERIFY2(::mknod(path.constData(), S_IFCHR | 0666, null) == 0, path.constData());
    }
    QVERIFY(touch(dir.filePath(u"drv/libcuda.so.1"_s)));
    const NvidiaDriverFiles driver =
        CdiSpec::discover(dir.filePath(u"dev"_s), ldconfigOutput(dir.filePath(u"drv"_s)), {});
    QCOMPARE(driver.gpuNodes.size(), 2);
    // A kind and file of this test's own: a real worker's spec on the machine stays untouched.
    const QString kind = u"ddl.test/gpu%1"_s.arg(::getpid());
    const QString file = u"ddl-test-%1.json"_s.arg(::getpid());
    QVERIFY(CdiSpec::write(CdiSpec::make(driver, kind), QString(CdiSpec::DefaultDir), file));
    const auto removeSpec = qScopeGuard([&] {
        QFile::remove(QDir(QString(CdiSpec::DefaultDir)).filePath(file));
    });

    const ddl::Result<PodmanRuntime> probed = PodmanRuntime::probe(podman, dir.path());
    if (!probed)
        QSKIP(qPrintable(u"podman cannot run here: "_s + probed.error().message));
    // In a fresh root the test image is not there yet.
    const QString built = ensureTestImage(podman);
    QVERIFY2(built.isEmpty(), qPrintable(built));
    const QString image = TestImage;
    PodmanRuntime runtime = *probed;
    runtime.setGpuKind(kind);
    ContainerSpec spec;
    spec.image = image;
    spec.name = u"ddl-cdi-test-%1"_s.arg(::getpid());
    spec.gpus = {1};
    QProcess check;
    check.setProcessChannelMode(QProcess::MergedChannels);
    check.start(runtime.program(),
                runtime.runArguments(spec, u"/bin/sh"_s,
                                     {u"-c"_s, u"for n in 0 1; do test -c /dev/nvidia$n && echo "
                                               u"has-nvidia$n; done; test -c /dev/nvidiactl && "
                                               u"echo has-ctl; cat "_s +
                                                   dir.filePath(u"drv/libcuda.so.1"_s)}));
    QVERIFY(check.waitForFinished(120000));
    const QString seen = QString::fromLocal8Bit(check.readAll());
    QVERIFY2(check.exitCode() == 0, qPrintable(seen));
    QVERIFY2(seen.contains(u"has-nvidia1"_s) && !seen.contains(u"has-nvidia0"_s) &&
                 seen.contains(u"has-ctl"_s) && seen.contains(u"fake driver file"_s),
             qPrintable(seen));
}

QTEST_MAIN(tst_CdiSpec)
#include "tst_cdispec.moc"
