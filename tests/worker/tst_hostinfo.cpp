#include "agent/hostinfo.h"

#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QTemporaryDir>
#include <QTcpServer>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

class tst_HostInfo : public QObject
{
    Q_OBJECT

private slots:
    void memTotal_data();
    void memTotal();
    void nvidiaSmi();
    void deviceMinorFromTheDriver();
    void declaredGpus();
    void freePortCanBeBound();
    void advertiseAddress();
};

void tst_HostInfo::memTotal_data()
{
    QTest::addColumn<QByteArray>("meminfo");
    QTest::addColumn<qint64>("megabytes");
    QTest::newRow("debian") << QByteArray("MemTotal:       131891232 kB\nMemFree:  1000 kB\n")
                            << qint64(128800);
    QTest::newRow("not first") << QByteArray("Foo: 1 kB\nMemTotal: 2048 kB\n") << qint64(2);
    QTest::newRow("missing") << QByteArray("MemFree: 1000 kB\n") << qint64(-1);
}

void tst_HostInfo::memTotal()
{
    QFETCH(QByteArray, meminfo);
    QTEST(parseMemTotalMb(meminfo), "megabytes");
}

void tst_HostInfo::nvidiaSmi()
{
    // What an H100's nvidia-smi answers (seen on one), a second card, and a name with a comma.
    const QList<GpuInfo> gpus = parseNvidiaSmiCsv(
        "0, GPU-8912d640-82a1-c508-b441-02b46d3e5116, 00000000:18:00.0, 81559 MiB, NVIDIA H100 80GB HBM3\n"
        "1, GPU-00000000-82a1-c508-b441-02b46d3e5116, 00000000:2A:00.0, 81559 MiB, NVIDIA H100 80GB HBM3\n"
        "2, GPU-2, 00000000:3b:00.0, 1024 MiB, Card, Rev. B\n"
        "garbage line\n\n");
    QCOMPARE(gpus.size(), 3);
    QCOMPARE(gpus.at(1).index, 1);
    QCOMPARE(gpus.at(0).uuid, u"GPU-8912d640-82a1-c508-b441-02b46d3e5116"_s);
    QCOMPARE(gpus.at(2).name, u"Card, Rev. B"_s);
    QCOMPARE(gpus.at(2).memoryMb, 1024);
    QCOMPARE(gpus.at(0).name, u"NVIDIA H100 80GB HBM3"_s);
    QCOMPARE(gpus.at(0).memoryMb, 81559);
    QCOMPARE(gpus.at(1).pciBusId, u"00000000:2A:00.0"_s);
    QCOMPARE(gpus.at(1).minor, 1); // until the driver says otherwise
    // The label OpenPAI's gpuType is matched against, unless --gpu-type names another.
    QCOMPARE(defaultGpuType(HostResources{8, 1000, gpus}), u"NVIDIA H100 80GB HBM3"_s);
}

void tst_HostInfo::deviceMinorFromTheDriver()
{
    // The driver's folder as /proc/driver/nvidia/gpus lays it out: a 4-digit domain, lower case.
    QTemporaryDir proc;
    QVERIFY(proc.isValid());
    QVERIFY(QDir().mkpath(proc.filePath(u"0000:2a:00.0"_s)));
    QFile information(proc.filePath(u"0000:2a:00.0/information"_s));
    QVERIFY(information.open(QIODevice::WriteOnly));
    information.write("Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 170\n"
                      "GPU UUID: \t GPU-00000000-82a1-c508-b441-02b46d3e5116\n"
                      "Device Minor: \t 3\nBus Location: \t 0000:2a:00.0\n");
    information.close();
    QCOMPARE(nvidiaDeviceMinor(u"00000000:2A:00.0"_s, proc.path()), 3);
    QCOMPARE(nvidiaDeviceMinor(u"00000000:18:00.0"_s, proc.path()), -1); // no folder
    QCOMPARE(nvidiaDeviceMinor(u"garbage"_s, proc.path()), -1);
}

void tst_HostInfo::declaredGpus()
{
    const HostResources resources = detectHostResources(3);
    QCOMPARE(resources.gpus.size(), 3);
    QCOMPARE(resources.gpus.at(2).index, 2);
    QVERIFY(resources.cpus >= 1);
    QVERIFY(resources.memoryMb > 0);
    QVERIFY(detectHostResources(0).gpus.isEmpty());
    // Declared GPUs have no model to announce; a worker without GPUs has no type.
    QCOMPARE(defaultGpuType(resources), QString());
    QCOMPARE(defaultGpuType(detectHostResources(0)), QString());
}

void tst_HostInfo::freePortCanBeBound()
{
    const ddl::Result<quint16> port = allocateFreePort();
    QVERIFY(port.ok());
    QVERIFY(*port > 0);
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::Any, *port));
}

void tst_HostInfo::advertiseAddress()
{
    QVERIFY(!QHostAddress(detectAdvertiseAddress()).isNull());
}

QTEST_GUILESS_MAIN(tst_HostInfo)
#include "tst_hostinfo.moc"
