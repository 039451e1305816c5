#include "api/artifactdownload.h"
#include "commands/downloadcommand.h"
#include "commands/logscommand.h"
#include "commands/submitcommand.h"
#include "console.h"
#include "jobspec/projectconfig.h"
#include "outputformat.h"
#include "progressbar.h"

#include <QBuffer>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::cli;

class TestCliOutput : public QObject
{
    Q_OBJECT

private slots:
    void formatFromName_data();
    void formatFromName();
    void tableAlignsColumns();
    void jobTable();
    void taskTableShowsMissingValues();
    void jobStatus_data();
    void jobStatus();
    void lastLines_data();
    void lastLines();
    void humanSize_data();
    void humanSize();
    void seedBanner();
    void lineWriterText();
    void lineWriterJson();
    void progressBar();
    void progressBarQuietWithoutTerminal();
    void safeRelativePath_data();
    void safeRelativePath();
    void defaultJobName_data();
    void defaultJobName();
    void localDataFolder();
};

void TestCliOutput::formatFromName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("format"); // -1: refused
    QTest::newRow("json") << u"json"_s << int(OutputFormat::Json);
    QTest::newRow("table") << u"table"_s << int(OutputFormat::Table);
    QTest::newRow("text") << u"text"_s << int(OutputFormat::Table);
    QTest::newRow("JSON") << u"JSON"_s << -1;
    QTest::newRow("yaml") << u"yaml"_s << -1;
}

void TestCliOutput::formatFromName()
{
    QFETCH(QString, name);
    QFETCH(int, format);
    const auto parsed = Output::formatFromName(name);
    QCOMPARE(parsed.ok(), format >= 0);
    if (parsed.ok())
        QCOMPARE(int(*parsed), format);
    else
        QCOMPARE(parsed.error().field, u"output"_s);
}

void TestCliOutput::tableAlignsColumns()
{
    const QString text =
        Output::table({u"A"_s, u"LONG HEADER"_s, u"C"_s},
                      {{u"wide value"_s, u"x"_s, u"last"_s}, {u"v"_s, u""_s, u""_s}});
    QCOMPARE(text,
             u"A           LONG HEADER  C\n"
             "wide value  x            last\n"
             "v\n"_s);
}

void TestCliOutput::jobTable()
{
    const QJsonArray jobs = QJsonDocument::fromJson(R"([
        {"uuid": "5f0c-1", "name": "mnist", "state": "RUNNING", "kind": "ddl",
         "created_at": "2024-01-02T03:04:05Z"},
        {"uuid": "77aa-2", "name": "resnet-large", "state": "WAITING", "kind": "openpai",
         "created_at": "2024-01-01T00:00:00Z"}])")
                                .array();
    QCOMPARE(Output::jobTable(jobs),
             u"UUID    NAME          STATE    KIND     CREATED\n"
             "5f0c-1  mnist         RUNNING  ddl      2024-01-02T03:04:05Z\n"
             "77aa-2  resnet-large  WAITING  openpai  2024-01-01T00:00:00Z\n"_s);
}

void TestCliOutput::taskTableShowsMissingValues()
{
    const QJsonArray tasks = QJsonDocument::fromJson(R"([
        {"id": 17, "index": 0, "role": "worker", "role_index": 0, "state": "SUCCEEDED",
         "exit_code": 0, "worker": "host-a", "worker_trust": 40, "attempt": 1},
        {"id": 18, "index": 1, "role": "worker", "role_index": 1, "state": "WAITING",
         "exit_code": null, "worker": null, "attempt": 1}])")
                                 .array();
    QCOMPARE(Output::taskTable(tasks),
             u"ROLE    INDEX  ATTEMPT  STATE      EXIT  WORKER  TRUST\n"
             "worker  0      1        SUCCEEDED  0     host-a  40\n"
             "worker  1      1        WAITING    -     -       -\n"_s);
    QCOMPARE(Output::taskLabel(*ddl::TaskMessage::fromJson(tasks.at(1).toObject())),
             u"worker[1]"_s);
}

void TestCliOutput::jobStatus_data()
{
    QTest::addColumn<QByteArray>("job");
    QTest::addColumn<QString>("text");
    QTest::newRow("waiting with reason")
        << QByteArray(R"({"state": "WAITING", "reason": "waiting for a free worker"})")
        << u"status: WAITING\nreason: waiting for a free worker\n"_s;
    QTest::newRow("waiting without reason")
        << QByteArray(R"({"state": "WAITING"})") << u"status: WAITING\n"_s;
    QTest::newRow("running hides reason")
        << QByteArray(R"({"state": "RUNNING", "reason": "old"})") << u"status: RUNNING\n"_s;
}

void TestCliOutput::jobStatus()
{
    QFETCH(QByteArray, job);
    QFETCH(QString, text);
    QCOMPARE(Output::jobStatus(QJsonDocument::fromJson(job).object()), text);
}

void TestCliOutput::lastLines_data()
{
    QTest::addColumn<QByteArray>("log");
    QTest::addColumn<int>("count");
    QTest::addColumn<QStringList>("lines");
    QTest::newRow("empty") << QByteArray() << 10 << QStringList();
    QTest::newRow("fewer") << QByteArray("a\nb\n") << 10 << QStringList{u"a"_s, u"b"_s};
    QTest::newRow("more") << QByteArray("1\n2\n3\n4\n") << 2 << QStringList{u"3"_s, u"4"_s};
    QTest::newRow("unfinished last line")
        << QByteArray("1\n2\n3") << 2 << QStringList{u"2"_s, u"3"_s};
    QTest::newRow("crlf") << QByteArray("a\r\nb\r\n") << 5 << QStringList{u"a"_s, u"b"_s};
    QTest::newRow("blank lines kept")
        << QByteArray("a\n\nb\n") << 5 << QStringList{u"a"_s, u""_s, u"b"_s};
    QTest::newRow("utf-8") << QByteArray("step \xc3\xa9\n") << 1 << QStringList{u"step \u00e9"_s};
}

void TestCliOutput::lastLines()
{
    QFETCH(QByteArray, log);
    QFETCH(int, count);
    QFETCH(QStringList, lines);
    QCOMPARE(Output::lastLines(log, count), lines);
}

void TestCliOutput::seedBanner()
{
    // The seed's heading, as its README shows it.
    QCOMPARE(Output::banner(u"Step 1: User login"_s),
             u"===========================================\n"
             "Step 1: User login\n"
             "===========================================\n"_s);
}

void TestCliOutput::humanSize_data()
{
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("0") << qint64(0) << u"0 B"_s;
    QTest::newRow("1023") << qint64(1023) << u"1023 B"_s;
    QTest::newRow("1536") << qint64(1536) << u"1.5 KiB"_s;
    QTest::newRow("20 MB") << qint64(20'000'000) << u"19.1 MiB"_s;
    QTest::newRow("3 GiB") << (qint64(3) << 30) << u"3.0 GiB"_s;
}

void TestCliOutput::humanSize()
{
    QFETCH(qint64, bytes);
    QFETCH(QString, text);
    QCOMPARE(Output::humanSize(bytes), text);
}

// A console over buffers, for the writers that print.
struct BufferConsole
{
    BufferConsole()
        : console(&in, &out, &err)
    {
        in.open(QIODevice::ReadOnly);
        out.open(QIODevice::WriteOnly);
        err.open(QIODevice::WriteOnly);
    }
    QString stdoutText() const { return QString::fromUtf8(out.data()); }
    QString stderrText() const { return QString::fromUtf8(err.data()); }

    QBuffer in;
    QBuffer out;
    QBuffer err;
    Console console;
};

static ddl::TaskMessage sampleTask()
{
    return *ddl::TaskMessage::fromJson(
        QJsonDocument::fromJson(
            R"({"id": 17, "role": "worker", "role_index": 1, "attempt": 2, "state": "RUNNING"})")
            .object());
}

void TestCliOutput::lineWriterText()
{
    BufferConsole buffers;
    {
        LogsCommand::LineWriter plain(buffers.console, OutputFormat::Table, sampleTask(), false);
        plain.write("first li");
        QCOMPARE(buffers.stdoutText(), QString()); // an unfinished line waits for its end
        plain.write("ne\nsecond\r\nthi");
        plain.write("rd");
        plain.flush();
    }
    QCOMPARE(buffers.stdoutText(), u"first line\nsecond\nthird\n"_s);

    BufferConsole labelled;
    LogsCommand::LineWriter writer(labelled.console, OutputFormat::Table, sampleTask(), true);
    writer.write("a\nb\n");
    writer.flush();
    QCOMPARE(labelled.stdoutText(), u"worker[1]| a\nworker[1]| b\n"_s);
}

void TestCliOutput::lineWriterJson()
{
    BufferConsole buffers;
    LogsCommand::LineWriter writer(buffers.console, OutputFormat::Json, sampleTask(), true);
    writer.write("loss 0.5\n{\"quoted\": 1}\n");
    writer.flush();
    const QStringList lines = buffers.stdoutText().split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    const QJsonObject first = QJsonDocument::fromJson(lines.at(0).toUtf8()).object();
    QCOMPARE(first.value("task"_L1).toInteger(), 17);
    QCOMPARE(first.value("role"_L1).toString(), u"worker"_s);
    QCOMPARE(first.value("role_index"_L1).toInteger(), 1);
    QCOMPARE(first.value("attempt"_L1).toInteger(), 2);
    QCOMPARE(first.value("line"_L1).toString(), u"loss 0.5"_s);
    QCOMPARE(QJsonDocument::fromJson(lines.at(1).toUtf8()).object().value("line"_L1).toString(),
             u"{\"quoted\": 1}"_s);
}

void TestCliOutput::progressBar()
{
    ddl::TransferProgress half{1024 * 1024, 2 * 1024 * 1024, 512 * 1024, 2};
    QCOMPARE(ProgressBar::render(u"code"_s, half),
             u"code  [############............]   50%  1.0 MiB/2.0 MiB  512.0 KiB/s  ETA 2s"_s);
    ddl::TransferProgress done{10, 10, 0, -1};
    QCOMPARE(ProgressBar::render(u"dataset"_s, done),
             u"dataset  [########################]  100%  10 B/10 B"_s);
    ddl::TransferProgress empty{0, 0, 0, -1};
    QVERIFY(ProgressBar::render(u"x"_s, empty).contains(u"100%"_s));

    BufferConsole buffers;
    buffers.console.setTerminals(false, false, true);
    ProgressBar bar(buffers.console, u"code"_s);
    bar.update(half);
    bar.update(done);
    bar.finish();
    QVERIFY(buffers.stderrText().startsWith(u"\r\x1b[Kcode  ["_s));
    QVERIFY(buffers.stderrText().endsWith(u"10 B/10 B\n"_s));
    QVERIFY(buffers.stdoutText().isEmpty());
}

void TestCliOutput::progressBarQuietWithoutTerminal()
{
    BufferConsole buffers;
    ProgressBar bar(buffers.console, u"code"_s);
    bar.update({5, 10, 1, 5});
    bar.update({10, 10, 1, 0});
    bar.finish();
    QVERIFY(buffers.stderrText().isEmpty());
    QVERIFY(buffers.stdoutText().isEmpty());
}

void TestCliOutput::safeRelativePath_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("safe");
    QTest::newRow("file") << u"model.bin"_s << true;
    QTest::newRow("nested") << u"sub/dir/notes.txt"_s << true;
    QTest::newRow("dots in names") << u"a..b/..c"_s << true;
    QTest::newRow("parent") << u"../evil"_s << false;
    QTest::newRow("inner parent") << u"a/../../evil"_s << false;
    QTest::newRow("trailing parent") << u"a/.."_s << false;
    QTest::newRow("absolute") << u"/etc/passwd"_s << false;
    QTest::newRow("backslash") << u"a\\..\\b"_s << false;
    QTest::newRow("drive") << u"C:evil"_s << false;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("empty part") << u"a//b"_s << false;
    QTest::newRow("dot part") << u"./a"_s << false;
}

void TestCliOutput::safeRelativePath()
{
    QFETCH(QString, path);
    QFETCH(bool, safe);
    const auto checked = ddl::ArtifactDownload::safeRelativePath(path);
    QCOMPARE(checked.ok(), safe);
    if (safe)
        QCOMPARE(*checked, path);
    else
        QCOMPARE(checked.error().code, u"unsafe_path"_s);
}

void TestCliOutput::defaultJobName_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("name");
    QTest::newRow("plain") << u"mnist"_s << u"mnist"_s;
    QTest::newRow("allowed punctuation") << u"my_model-v1.2~x"_s << u"my_model-v1.2~x"_s;
    QTest::newRow("spaces") << u"my model  2"_s << u"my-model-2"_s;
    QTest::newRow("non-ascii") << u"modèle"_s << u"mod-le"_s;
}

void TestCliOutput::defaultJobName()
{
    QFETCH(QString, folder);
    QFETCH(QString, name);
    QCOMPARE(ddl::ProjectConfig::defaultJobName(folder), name);
}

void TestCliOutput::localDataFolder()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(u"data/mnist"_s));
    const QString base = dir.path();
    QCOMPARE(SubmitCommand::localDataFolder(u"data/mnist"_s, base),
             QDir(base).absoluteFilePath(u"data/mnist"_s));
    QCOMPARE(SubmitCommand::localDataFolder(base + u"/data"_s, u"/"_s), base + u"/data"_s);
    QVERIFY(SubmitCommand::localDataFolder(u"hdfs://nn:9000/data"_s, base).isEmpty());
    QVERIFY(SubmitCommand::localDataFolder(u"missing"_s, base).isEmpty());
    QVERIFY(SubmitCommand::localDataFolder(QString(), base).isEmpty());
}

QTEST_GUILESS_MAIN(TestCliOutput)
#include "tst_cli_output.moc"
