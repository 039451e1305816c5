#include "config/bytesize.h"
#include "config/workerconfig.h"

#include <QCommandLineParser>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ddl::worker::WorkerConfig;

class tst_WorkerConfig : public QObject
{
    Q_OBJECT

private slots:
    void yaml_data();
    void yaml();
    void yamlErrors_data();
    void yamlErrors();
    void flagsOverrideFile();
    void defaultsAndValidation();
    void defaultPython();
    void exampleFileParses();
    void cacheSize_data();
    void cacheSize();
    void gpuType_data();
    void gpuType();
    void containerRuntime_data();
    void containerRuntime();
    void allowRoot_data();
    void allowRoot();
    void slurmBackend_data();
    void slurmBackend();
    void ownerPolicy_data();
    void ownerPolicy();
    void idleInput_data();
    void idleInput();
    void checkpointInterval_data();
    void checkpointInterval();

private:
    // flags after --config of a worker.yaml in dir: the server and work_dir, then yaml.
    static ddl::Result<WorkerConfig>
    parseWithFile(const QTemporaryDir &dir, const QByteArray &yaml, const QStringList &flags)
    {
        const QString file = dir.filePath(u"worker.yaml"_s);
        QFile config(file);
        if (!config.open(QIODevice::WriteOnly))
            return ddl::Error::make(ddl::ErrorCode::IoError, u"cannot write "_s + file);
        config.write("server: https://h:1\nwork_dir: " + dir.path().toUtf8() + '\n' + yaml);
        config.close();
        return parse(QStringList{u"--config"_s, file} + flags);
    }

    static ddl::Result<WorkerConfig> parse(const QStringList &arguments)
    {
        QCommandLineParser parser;
        WorkerConfig::addOptions(parser);
        if (!parser.parse(QStringList{u"ddl-worker"_s} + arguments))
            return ddl::Error::make(ddl::ErrorCode::InvalidArgument, parser.errorText());
        return WorkerConfig::fromParser(parser);
    }
};

void tst_WorkerConfig::yaml_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("server");
    QTest::addColumn<QString>("workDir");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("slots");
    QTest::addColumn<QString>("python");

    QTest::newRow("empty") << QByteArray() << QString() << QString() << -1 << 0 << QString();
    QTest::newRow("full") << QByteArray("server: https://ddl.example:8443\n"
                                        "token: secret\n"
                                        "work_dir: /var/lib/ddl-worker\n"
                                        "name: gpu-box\n"
                                        "python: /opt/py/bin/python3\n"
                                        "gpus: 2\n"
                                        "gpu_type: Tesla V100\n"
                                        "slots: 4\n")
                          << u"https://ddl.example:8443"_s << u"/var/lib/ddl-worker"_s << 2 << 4
                          << u"/opt/py/bin/python3"_s;
    QTest::newRow("quoted numbers")
        << QByteArray("gpus: '0'\nslots: \"1\"\n") << QString() << QString() << 0 << 1 << QString();
}

void tst_WorkerConfig::yaml()
{
    QFETCH(QByteArray, yaml);
    const ddl::Result<WorkerConfig> config = WorkerConfig::fromYaml(yaml, u"worker.yaml"_s);
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().message));
    QFETCH(QString, server);
    QCOMPARE(config->serverUrl.toString(), server);
    QTEST(config->workDir, "workDir");
    QTEST(config->gpus, "gpus");
    QTEST(config->slotCount, "slots");
    QTEST(config->python, "python");
    if (QByteArray(QTest::currentDataTag()) == "full")
        QCOMPARE(config->gpuType, u"Tesla V100"_s);
    else
        QCOMPARE(config->gpuType, QString());
}

void tst_WorkerConfig::yamlErrors_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("messagePart");

    QTest::newRow("unknown key") << QByteArray("server: https://a\nwork-dir: /x\n") << u"work-dir"_s
                                 << u"unknown key 'work-dir'"_s;
    QTest::newRow("negative gpus") << QByteArray("gpus: -1\n") << u"gpus"_s << u">= 0"_s;
    QTest::newRow("text slots") << QByteArray("slots: many\n") << u"slots"_s << u"'many'"_s;
    QTest::newRow("list value") << QByteArray("python: [a, b]\n") << u"python"_s
                                << u"single value"_s;
    QTest::newRow("not a mapping") << QByteArray("- a\n- b\n") << QString() << u"mapping"_s;
    QTest::newRow("bad cache size")
        << QByteArray("cache_size: 20X\n") << u"cache_size"_s << u"'20X' is not a size"_s;
    QTest::newRow("sample interval not seconds")
        << QByteArray("sample_interval: often\n") << u"sample_interval"_s << u"'often'"_s;
    QTest::newRow("sample interval too short")
        << QByteArray("sample_interval: 0.01\n") << u"sample_interval"_s << u"between 0.1"_s;
    QTest::newRow("bad yaml") << QByteArray("server: [unclosed\n") << QString()
                              << u"not valid YAML"_s;
}

void tst_WorkerConfig::yamlErrors()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, field);
    QFETCH(QString, messagePart);
    const ddl::Result<WorkerConfig> config = WorkerConfig::fromYaml(yaml, u"worker.yaml"_s);
    QVERIFY(!config.ok());
    QCOMPARE(config.error().field, field);
    QVERIFY2(config.error().message.contains(messagePart), qPrintable(config.error().message));
    QVERIFY(config.error().message.startsWith(u"worker.yaml"));
}

void tst_WorkerConfig::flagsOverrideFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(u"worker.yaml"_s);
    QFile yaml(file);
    QVERIFY(yaml.open(QIODevice::WriteOnly));
    yaml.write("server: https://from-file:1\nwork_dir: " + dir.path().toUtf8() +
               "\ngpus: 3\nslots: 2\nname: file-name\ncache_size: 20G\nsample_interval: 10\n");
    yaml.close();

    const ddl::Result<WorkerConfig> config = parse({u"--config"_s,
                                                    file,
                                                    u"--server"_s,
                                                    u"https://from-flag:2"_s,
                                                    u"--gpus"_s,
                                                    u"1"_s,
                                                    u"--token"_s,
                                                    u"enroll-me"_s});
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().message));
    QCOMPARE(config->serverUrl, QUrl(u"https://from-flag:2"_s));
    QCOMPARE(config->gpus, 1);      // flag wins
    QCOMPARE(config->slotCount, 2); // from the file
    QCOMPARE(config->cacheSizeBytes, 20LL << 30);
    const ddl::Result<WorkerConfig> smaller =
        parse({u"--config"_s, file, u"--cache-size"_s, u"512M"_s});
    QVERIFY2(smaller.ok(), smaller.ok() ? "" : qPrintable(smaller.error().message));
    QCOMPARE(smaller->cacheSizeBytes, 512LL << 20);
    QCOMPARE(config->sampleIntervalMs, 10000); // from the file
    const ddl::Result<WorkerConfig> sampled =
        parse({u"--config"_s, file, u"--sample-interval"_s, u"0.25"_s});
    QVERIFY(sampled.ok());
    QCOMPARE(sampled->sampleIntervalMs, 250);
    const ddl::Result<WorkerConfig> unsampled =
        parse({u"--config"_s, file, u"--sample-interval"_s, u"0"_s});
    QVERIFY(unsampled.ok());
    QCOMPARE(unsampled->sampleIntervalMs, 0);
    QCOMPARE(config->name, u"file-name"_s);
    QCOMPARE(config->enrollToken, u"enroll-me"_s);
    QCOMPARE(config->workDir, QDir(dir.path()).absolutePath());
}

void tst_WorkerConfig::defaultsAndValidation()
{
    QTemporaryDir dir;
    const ddl::Result<WorkerConfig> relative =
        parse({u"--server"_s, u"https://h:1"_s, u"--work-dir"_s, u"relative/dir"_s});
    QVERIFY(relative.ok());
    QVERIFY(QDir::isAbsolutePath(relative->workDir));
    QVERIFY(!relative->name.isEmpty());
    QVERIFY(!relative->python.isEmpty());
    QCOMPARE(relative->gpus, -1);
    QCOMPARE(relative->cacheSizeBytes, qint64(0)); // no limit unless one is given
    QCOMPARE(relative->sampleIntervalMs, 5000);

    const ddl::Result<WorkerConfig> noServer = parse({u"--work-dir"_s, dir.path()});
    QVERIFY(!noServer.ok());
    QCOMPARE(noServer.error().field, u"server"_s);

    const ddl::Result<WorkerConfig> noWorkDir = parse({u"--server"_s, u"https://h:1"_s});
    QVERIFY(!noWorkDir.ok());
    QCOMPARE(noWorkDir.error().field, u"work_dir"_s);

    const ddl::Result<WorkerConfig> badScheme =
        parse({u"--server"_s, u"ftp://h:1"_s, u"--work-dir"_s, dir.path()});
    QVERIFY(!badScheme.ok());

    const ddl::Result<WorkerConfig> badGpus = parse(
        {u"--server"_s, u"https://h:1"_s, u"--work-dir"_s, dir.path(), u"--gpus"_s, u"two"_s});
    QVERIFY(!badGpus.ok());
    QCOMPARE(badGpus.error().field, u"gpus"_s);

    const ddl::Result<WorkerConfig> missingCa = parse({u"--server"_s,
                                                       u"https://h:1"_s,
                                                       u"--work-dir"_s,
                                                       dir.path(),
                                                       u"--ca-cert"_s,
                                                       dir.filePath(u"no.pem"_s)});
    QVERIFY(!missingCa.ok());
    QCOMPARE(missingCa.error().field, u"ca_cert"_s);
}

void tst_WorkerConfig::defaultPython()
{
    const QString python = ddl::worker::defaultPythonInterpreter();
    if (QFileInfo(u"/usr/bin/python3"_s).isExecutable())
        QCOMPARE(python, u"/usr/bin/python3"_s);
    else
        QVERIFY(python.endsWith(u"python3"));
}

void tst_WorkerConfig::exampleFileParses()
{
    const QString source = qEnvironmentVariable("DDL_SOURCE_DIR");
    if (source.isEmpty())
        QSKIP("DDL_SOURCE_DIR is not set (run through ctest)");
    const ddl::Result<WorkerConfig> config =
        WorkerConfig::fromYamlFile(source + u"/worker/worker.example.yaml"_s);
    QVERIFY2(config.ok(), config.ok() ? "" : qPrintable(config.error().message));
    QCOMPARE(config->workDir, u"/var/lib/ddl-worker"_s);
    QCOMPARE(config->gpus, -1);
}

void tst_WorkerConfig::cacheSize_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes"); // -1: refused
    QTest::newRow("bytes") << u"4096"_s << qint64(4096);
    QTest::newRow("K") << u"64K"_s << qint64(64 * 1024);
    QTest::newRow("M lowercase") << u"512m"_s << qint64(512) * 1024 * 1024;
    QTest::newRow("G") << u"20G"_s << (qint64(20) << 30);
    QTest::newRow("GiB") << u"20GiB"_s << (qint64(20) << 30);
    QTest::newRow("fraction T") << u"1.5T"_s << (qint64(3) << 39);
    QTest::newRow("zero: no limit") << u"0"_s << qint64(0);
    QTest::newRow("unknown unit") << u"20X"_s << qint64(-1);
    QTest::newRow("negative") << u"-1G"_s << qint64(-1);
    QTest::newRow("empty") << QString() << qint64(-1);
    QTest::newRow("too large") << u"99999999T"_s << qint64(-1);
}

void tst_WorkerConfig::cacheSize()
{
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    const ddl::Result<qint64> parsed = ddl::worker::parseByteSize(text);
    if (bytes < 0) {
        QVERIFY(!parsed.ok());
        QVERIFY2(parsed.error().message.contains(u"'%1'"_s.arg(text)),
                 qPrintable(parsed.error().message));
        return;
    }
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : qPrintable(parsed.error().message));
    QCOMPARE(*parsed, bytes);
}

void tst_WorkerConfig::gpuType_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("gpuType"); // expected; ignored when an error is expected
    QTest::addColumn<bool>("valid");

    QTest::newRow("none: the detected model") << QByteArray() << QStringList() << QString() << true;
    QTest::newRow("flag") << QByteArray() << QStringList{u"--gpu-type"_s, u"V100"_s} << u"V100"_s
                          << true;
    QTest::newRow("file") << QByteArray("gpu_type: gtx1080\n") << QStringList() << u"gtx1080"_s
                          << true;
    QTest::newRow("flag over file") << QByteArray("gpu_type: gtx1080\n")
                                    << QStringList{u"--gpu-type"_s, u"K80"_s} << u"K80"_s << true;
    QTest::newRow("two lines") << QByteArray() << QStringList{u"--gpu-type"_s, u"V100\nK80"_s}
                               << QString() << false;
    QTest::newRow("too long") << QByteArray()
                              << QStringList{u"--gpu-type"_s, QString(101, u'x')} << QString()
                              << false;
}

void tst_WorkerConfig::gpuType()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, flags);
    QFETCH(bool, valid);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ddl::Result<WorkerConfig> parsed = parseWithFile(dir, yaml, flags);
    QCOMPARE(parsed.ok(), valid);
    if (!valid) {
        QCOMPARE(parsed.error().field, u"gpu_type"_s);
        QVERIFY2(parsed.error().message.contains(u"printable characters"),
                 qPrintable(parsed.error().message));
        return;
    }
    QTEST(parsed->gpuType, "gpuType");
}

void tst_WorkerConfig::containerRuntime_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("runtime"); // expected; ignored when an error is expected
    QTest::addColumn<bool>("valid");

    QTest::newRow("none given: no containers")
        << QByteArray() << QStringList() << QString() << true;
    QTest::newRow("flag") << QByteArray() << QStringList{u"--container-runtime"_s, u"podman"_s}
                          << u"podman"_s << true;
    QTest::newRow("file") << QByteArray("container_runtime: podman\n") << QStringList()
                          << u"podman"_s << true;
    QTest::newRow("flag over file")
        << QByteArray("container_runtime: podman\n")
        << QStringList{u"--container-runtime"_s, u"none"_s} << u"none"_s << true;
    QTest::newRow("docker") << QByteArray() << QStringList{u"--container-runtime"_s, u"docker"_s}
                            << QString() << false;
}

void tst_WorkerConfig::containerRuntime()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, flags);
    QFETCH(bool, valid);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ddl::Result<WorkerConfig> parsed = parseWithFile(dir, yaml, flags);
    QCOMPARE(parsed.ok(), valid);
    if (!valid) {
        QCOMPARE(parsed.error().field, u"container_runtime"_s);
        QVERIFY2(parsed.error().message.contains(u"must be podman or none, got 'docker'"),
                 qPrintable(parsed.error().message));
        return;
    }
    QTEST(parsed->containerRuntime, "runtime");
}

void tst_WorkerConfig::allowRoot_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<bool>("allowed");

    QTest::newRow("default: root refused") << QByteArray() << QStringList() << false;
    QTest::newRow("flag") << QByteArray() << QStringList{u"--allow-root"_s} << true;
    QTest::newRow("file") << QByteArray("allow_root: true\n") << QStringList() << true;
    QTest::newRow("file says no") << QByteArray("allow_root: false\n") << QStringList() << false;
}

// The worker's user is its tasks' user: as root only when the owner says so.
void tst_WorkerConfig::allowRoot()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, flags);
    QFETCH(bool, allowed);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ddl::Result<WorkerConfig> parsed = parseWithFile(dir, yaml, flags);
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : qPrintable(parsed.error().message));
    QCOMPARE(parsed->allowRoot, allowed);
    QVERIFY(parsed->checkUser(false).ok()); // an unprivileged user always runs
    const ddl::Status asRoot = parsed->checkUser(true);
    QCOMPARE(asRoot.ok(), allowed);
    if (!allowed) {
        QCOMPARE(asRoot.error().field, u"allow_root"_s);
        QVERIFY2(asRoot.error().message.contains(u"--allow-root"_s),
                 qPrintable(asRoot.error().message));
    }
}

void tst_WorkerConfig::slurmBackend_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("partition");
    QTest::addColumn<QString>("error"); // empty: valid

    QTest::newRow("default: local") << QByteArray() << QStringList() << u"local"_s << QString()
                                    << QString();
    QTest::newRow("flags") << QByteArray()
                           << QStringList{u"--backend"_s, u"slurm"_s, u"--partition"_s, u"gpu"_s,
                                          u"--no-sandbox"_s}
                           << u"slurm"_s << u"gpu"_s << QString();
    QTest::newRow("file, default partition")
        << QByteArray("backend: slurm\nno_sandbox: true\n") << QStringList() << u"slurm"_s
        << QString() << QString();
    QTest::newRow("slurm without --no-sandbox")
        << QByteArray() << QStringList{u"--backend"_s, u"slurm"_s} << QString() << QString()
        << u"add --no-sandbox"_s;
    QTest::newRow("unknown backend") << QByteArray() << QStringList{u"--backend"_s, u"pbs"_s}
                                     << QString() << QString()
                                     << u"must be local or slurm, got 'pbs'"_s;
    QTest::newRow("partition without slurm")
        << QByteArray() << QStringList{u"--partition"_s, u"gpu"_s} << QString() << QString()
        << u"needs --backend slurm"_s;
    QTest::newRow("partition with a space")
        << QByteArray("backend: slurm\nno_sandbox: true\npartition: a b\n") << QStringList()
        << QString()
        << QString() << u"must be a Slurm partition name"_s;
}

void tst_WorkerConfig::slurmBackend()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, flags);
    QFETCH(QString, error);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ddl::Result<WorkerConfig> parsed = parseWithFile(dir, yaml, flags);
    QCOMPARE(parsed.ok(), error.isEmpty());
    if (!error.isEmpty()) {
        QVERIFY2(parsed.error().message.contains(error), qPrintable(parsed.error().message));
        return;
    }
    QTEST(parsed->backend, "backend");
    QTEST(parsed->partition, "partition");
}

void tst_WorkerConfig::ownerPolicy_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<bool>("onlyWhenIdle");
    QTest::addColumn<QString>("hours");
    QTest::addColumn<int>("notice");
    QTest::addColumn<QString>("error"); // empty: valid; else the key, then what the message says

    QTest::newRow("default: any time, 30 s")
        << QByteArray() << QStringList() << false << QString() << 30 << QString();
    QTest::newRow("file") << QByteArray("only_when_idle: true\navailable: \"Mon-Fri 19:00-07:00, "
                                        "Sat-Sun\"\npreempt_notice: 60\n")
                          << QStringList() << true << u"Mon-Fri 19:00-07:00, Sat-Sun"_s << 60
                          << QString();
    QTest::newRow("flags over the file")
        << QByteArray("available: Sat-Sun\npreempt_notice: 60\n")
        << QStringList{u"--only-when-idle"_s, u"--available"_s, u"Mon 08:00-09:00"_s,
                       u"--preempt-notice"_s, u"0"_s}
        << true << u"Mon 08:00-09:00"_s << 0 << QString();
    QTest::newRow("bad hours in the file")
        << QByteArray("available: weekends\n") << QStringList() << false << QString() << 30
        << u"available|the window 'weekends' is not of the form; write DAYS HH:MM-HH:MM"_s;
    QTest::newRow("bad hours flag")
        << QByteArray() << QStringList{u"--available"_s, u"Mon-Fri 19:00-31:00"_s} << false
        << QString() << 30 << u"available|'Mon-Fri 19:00-31:00' has a time"_s;
    QTest::newRow("notice not seconds")
        << QByteArray("preempt_notice: soon\n") << QStringList() << false << QString() << 30
        << u"preempt_notice|between 0 and 3600, got 'soon'"_s;
    QTest::newRow("only when idle not a switch")
        << QByteArray("only_when_idle: maybe\n") << QStringList() << false << QString() << 30
        << u"only_when_idle|true or false"_s;
    QTest::newRow("not with slurm")
        << QByteArray("backend: slurm\nonly_when_idle: true\n") << QStringList() << false
        << QString() << 30 << u"only_when_idle|needs --backend local"_s;
}

void tst_WorkerConfig::ownerPolicy()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, flags);
    QFETCH(QString, error);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ddl::Result<WorkerConfig> parsed = parseWithFile(dir, yaml, flags);
    QCOMPARE(parsed.ok(), error.isEmpty());
    if (!error.isEmpty()) {
        const QString key = error.section(u'|', 0, 0);
        const QString says = error.section(u'|', 1);
        QCOMPARE(parsed.error().field, key);
        QVERIFY2(parsed.error().message.contains(u"'"_s + key + u"'"_s),
                 qPrintable(parsed.error().message));
        QVERIFY2(parsed.error().message.contains(says), qPrintable(parsed.error().message));
        return;
    }
    QTEST(parsed->onlyWhenIdle, "onlyWhenIdle");
    QTEST(parsed->availableHours.text(), "hours");
    QTEST(parsed->preemptNoticeS, "notice");
}

void tst_WorkerConfig::idleInput_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<qint64>("idleMs");
    QTest::addColumn<QStringList>("devices"); // empty: the defaults
    QTest::addColumn<QString>("error");       // empty: valid; else the key, then what it says

    QTest::newRow("default: not watched")
        << QByteArray() << QStringList() << qint64(0) << QStringList() << QString();
    QTest::newRow("file, fractions of minutes")
        << QByteArray("idle_input_minutes: 2.5\ninput_devices: \"/dev/pts/[0-9]*, /dev/tty1\"\n")
        << QStringList() << qint64(150000) << QStringList{u"/dev/pts/[0-9]*"_s, u"/dev/tty1"_s}
        << QString();
    QTest::newRow("flag over the file")
        << QByteArray("idle_input_minutes: 10\n")
        << QStringList{u"--idle-input-minutes"_s, u"0.05"_s} << qint64(3000) << QStringList()
        << QString();
    QTest::newRow("not minutes")
        << QByteArray("idle_input_minutes: soon\n") << QStringList() << qint64(0) << QStringList()
        << u"idle_input_minutes|between 0.01 and 1440"_s;
    QTest::newRow("more than a day")
        << QByteArray() << QStringList{u"--idle-input-minutes"_s, u"1441"_s} << qint64(0)
        << QStringList() << u"idle_input_minutes|between 0.01 and 1440"_s;
    QTest::newRow("relative device path")
        << QByteArray("idle_input_minutes: 5\ninput_devices: dev/tty1\n") << QStringList()
        << qint64(0) << QStringList() << u"input_devices|must be absolute paths"_s;
    QTest::newRow("wildcard in a folder")
        << QByteArray("idle_input_minutes: 5\ninput_devices: /dev/*/event0\n") << QStringList()
        << qint64(0) << QStringList() << u"input_devices|wildcards only in the file's name"_s;
    QTest::newRow("disk limit, lent GPUs")
        << QByteArray("idle_input_minutes: 1\ntask_disk_limit: 20G\nlend_gpus: \"0, GPU-8912d640-82a1\"\n")
        << QStringList() << qint64(60000) << QStringList() << QString();
    QTest::newRow("disk limit not a size")
        << QByteArray("task_disk_limit: lots\n") << QStringList() << qint64(0) << QStringList()
        << u"task_disk_limit|"_s;
    QTest::newRow("lent GPU not an index or UUID")
        << QByteArray() << QStringList{u"--lend-gpus"_s, u"0,second"_s} << qint64(0)
        << QStringList() << u"lend_gpus|got 'second'"_s;
    QTest::newRow("devices without minutes")
        << QByteArray("input_devices: /dev/tty1\n") << QStringList() << qint64(0)
        << QStringList() << u"input_devices|needs --idle-input-minutes"_s;
    QTest::newRow("not with slurm")
        << QByteArray("backend: slurm\nno_sandbox: true\nidle_input_minutes: 5\n")
        << QStringList() << qint64(0) << QStringList()
        << u"idle_input_minutes|needs --backend local"_s;
}

void tst_WorkerConfig::idleInput()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, flags);
    QFETCH(QString, error);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ddl::Result<WorkerConfig> parsed = parseWithFile(dir, yaml, flags);
    QCOMPARE(parsed.ok(), error.isEmpty());
    if (!error.isEmpty()) {
        const QString key = error.section(u'|', 0, 0);
        QCOMPARE(parsed.error().field, key);
        QVERIFY2(parsed.error().message.contains(error.section(u'|', 1)),
                 qPrintable(parsed.error().message));
        return;
    }
    QTEST(parsed->idleInputMs, "idleMs");
    QTEST(parsed->inputDevices, "devices");
    if (yaml.contains("task_disk_limit")) {
        QCOMPARE(parsed->taskDiskLimitBytes, 20LL << 30);
        QCOMPARE(parsed->lendGpus, (QStringList{u"0"_s, u"GPU-8912d640-82a1"_s}));
    }
}

void tst_WorkerConfig::checkpointInterval_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<int>("seconds");
    QTest::addColumn<QString>("error"); // empty: valid; else what the message says

    QTest::newRow("default: 5 minutes") << QByteArray() << QStringList() << 300 << QString();
    QTest::newRow("file") << QByteArray("checkpoint_interval: 60\n") << QStringList() << 60
                          << QString();
    QTest::newRow("flag over the file: off")
        << QByteArray("checkpoint_interval: 60\n")
        << QStringList{u"--checkpoint-interval"_s, u"0"_s} << 0 << QString();
    QTest::newRow("not seconds") << QByteArray("checkpoint_interval: often\n") << QStringList()
                                 << 300 << u"between 0 (off) and 86400, got 'often'"_s;
    QTest::newRow("negative flag") << QByteArray()
                                   << QStringList{u"--checkpoint-interval"_s, u"-5"_s} << 300
                                   << u"got '-5'"_s;
}

void tst_WorkerConfig::checkpointInterval()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, flags);
    QFETCH(QString, error);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const ddl::Result<WorkerConfig> parsed = parseWithFile(dir, yaml, flags);
    QCOMPARE(parsed.ok(), error.isEmpty());
    if (!error.isEmpty()) {
        QCOMPARE(parsed.error().field, u"checkpoint_interval"_s);
        QVERIFY2(parsed.error().message.contains(error), qPrintable(parsed.error().message));
        return;
    }
    QTEST(parsed->checkpointIntervalS, "seconds");
}

QTEST_GUILESS_MAIN(tst_WorkerConfig)
#include "tst_workerconfig.moc"
