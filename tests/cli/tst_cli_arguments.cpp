#include "argumentparser.h"
#include "cliapplication.h"
#include "console.h"

#include <QBuffer>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::cli;

// Runs ddlcli in-process against buffers and a private config folder.
struct CliRun
{
    int exitCode = -1;
    QString out;
    QString err;
};

static CliRun runCli(const QStringList &arguments, const QByteArray &input = {})
{
    QTemporaryDir config;
    QByteArray inBytes = input;
    QBuffer in(&inBytes);
    QBuffer out;
    QBuffer err;
    in.open(QIODevice::ReadOnly);
    out.open(QIODevice::WriteOnly);
    err.open(QIODevice::WriteOnly);
    Console console(&in, &out, &err);
    CliApplication cli(console, config.path());
    CliRun run;
    run.exitCode = cli.run(arguments);
    run.out = QString::fromUtf8(out.data());
    run.err = QString::fromUtf8(err.data());
    return run;
}

class TestCliArguments : public QObject
{
    Q_OBJECT

private slots:
    void bothFlagForms_data();
    void bothFlagForms();
    void flagsAndShortNames();
    void errors_data();
    void errors();
    void doubleDashEndsOptions();
    void findCommand_data();
    void findCommand();
    void help();
    void commandErrors_data();
    void commandErrors();
    void helpWinsOverMissingOptions();
};

static QList<OptionSpec> specs()
{
    return {{u"job_uuid"_s, u"UUID"_s, u"the job"_s, {}, true},
            {u"dest"_s, u"DIR"_s, u"where"_s, {}, false},
            {u"ca-cert"_s, u"FILE"_s, u"trust"_s, {}, false},
            {u"follow"_s, {}, u"follow"_s, u'f', false},
            {u"task"_s, u"ID"_s, u"task"_s, u't', false}};
}

void TestCliArguments::bothFlagForms_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("uuid");
    QTest::addColumn<QString>("dest");

    QTest::newRow("equals") << QStringList{u"--job_uuid=abc"_s, u"--dest=/tmp/x"_s} << u"abc"_s
                            << u"/tmp/x"_s;
    QTest::newRow("space") << QStringList{u"--job_uuid"_s, u"abc"_s, u"--dest"_s, u"/tmp/x"_s}
                           << u"abc"_s << u"/tmp/x"_s;
    QTest::newRow("mixed") << QStringList{u"--dest"_s, u"d"_s, u"--job_uuid=u"_s} << u"u"_s
                           << u"d"_s;
    QTest::newRow("dash for underscore")
        << QStringList{u"--job-uuid"_s, u"abc"_s} << u"abc"_s << QString();
    QTest::newRow("value with equals sign")
        << QStringList{u"--job_uuid=a=b"_s} << u"a=b"_s << QString();
    QTest::newRow("value starting with one dash")
        << QStringList{u"--job_uuid"_s, u"-x"_s} << u"-x"_s << QString();
    QTest::newRow("last wins") << QStringList{u"--job_uuid=a"_s, u"--job_uuid=b"_s} << u"b"_s
                               << QString();
}

void TestCliArguments::bothFlagForms()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, uuid);
    QFETCH(QString, dest);
    const ddl::Result<ParsedArguments> parsed = ArgumentParser::parse(arguments, specs());
    QVERIFY2(parsed.ok(), qPrintable(parsed.ok() ? QString() : parsed.error().message));
    QCOMPARE(parsed->value(u"job_uuid"_s), uuid);
    QCOMPARE(parsed->value(u"dest"_s), dest);
    QCOMPARE(parsed->isSet(u"dest"_s), !dest.isEmpty());
    QVERIFY(parsed->positional().isEmpty());
}

void TestCliArguments::flagsAndShortNames()
{
    const auto parsed = ArgumentParser::parse(
        {u"--job_uuid=x"_s, u"-f"_s, u"-t"_s, u"17"_s, u"--ca-cert"_s, u"c.pem"_s}, specs());
    QVERIFY(parsed.ok());
    QVERIFY(parsed->isSet(u"follow"_s));
    QCOMPARE(parsed->value(u"task"_s), u"17"_s);
    QCOMPARE(parsed->value(u"ca-cert"_s), u"c.pem"_s);

    const auto glued = ArgumentParser::parse({u"--job_uuid=x"_s, u"-t5"_s}, specs());
    QVERIFY(glued.ok());
    QCOMPARE(glued->value(u"task"_s), u"5"_s);
    QVERIFY(!glued->isSet(u"follow"_s));

    const auto longFlag = ArgumentParser::parse({u"--job_uuid=x"_s, u"--follow"_s}, specs());
    QVERIFY(longFlag.ok());
    QVERIFY(longFlag->isSet(u"follow"_s));
}

void TestCliArguments::errors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");

    QTest::newRow("missing required") << QStringList{u"--dest=x"_s} << u"job_uuid"_s
                                      << u"missing required option --job_uuid=UUID"_s;
    QTest::newRow("missing value at end") << QStringList{u"--job_uuid"_s} << u"job_uuid"_s
                                          << u"--job_uuid needs a value (--job_uuid=UUID)"_s;
    QTest::newRow("missing value before option")
        << QStringList{u"--job_uuid"_s, u"--dest=x"_s} << u"job_uuid"_s
        << u"--job_uuid needs a value (--job_uuid=UUID)"_s;
    QTest::newRow("empty value") << QStringList{u"--job_uuid="_s} << u"job_uuid"_s
                                 << u"--job_uuid needs a non-empty value (--job_uuid=UUID)"_s;
    QTest::newRow("unknown long") << QStringList{u"--job_uuid=x"_s, u"--bogus=1"_s} << u"--bogus"_s
                                  << u"unknown option --bogus"_s;
    QTest::newRow("unknown short")
        << QStringList{u"--job_uuid=x"_s, u"-z"_s} << u"-z"_s << u"unknown option -z"_s;
    QTest::newRow("flag with value") << QStringList{u"--job_uuid=x"_s, u"--follow=yes"_s}
                                     << u"follow"_s << u"--follow takes no value"_s;
}

void TestCliArguments::errors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, field);
    QFETCH(QString, message);
    const auto parsed = ArgumentParser::parse(arguments, specs());
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().code, u"usage"_s);
    QCOMPARE(parsed.error().field, field);
    QCOMPARE(parsed.error().message, message);
}

void TestCliArguments::doubleDashEndsOptions()
{
    const auto parsed =
        ArgumentParser::parse({u"--job_uuid=x"_s, u"--"_s, u"--dest=y"_s, u"z"_s}, specs());
    QVERIFY(parsed.ok());
    QVERIFY(!parsed->isSet(u"dest"_s));
    QCOMPARE(parsed->positional(), (QStringList{u"--dest=y"_s, u"z"_s}));
}

void TestCliArguments::findCommand_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("index");

    QTest::newRow("first") << QStringList{u"submit"_s, u"--server"_s, u"s"_s} << 0;
    QTest::newRow("after valued global")
        << QStringList{u"--server"_s, u"https://h:1"_s, u"list"_s} << 2;
    QTest::newRow("after equals global") << QStringList{u"--server=https://h:1"_s, u"list"_s} << 1;
    QTest::newRow("after flag") << QStringList{u"--help"_s, u"list"_s} << 1;
    QTest::newRow("none") << QStringList{u"--server"_s, u"x"_s} << -1;
    QTest::newRow("empty") << QStringList{} << -1;
}

void TestCliArguments::findCommand()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, index);
    QCOMPARE(ArgumentParser::findCommand(arguments, CliApplication::globalOptions()),
             qsizetype(index));
}

void TestCliArguments::help()
{
    const CliRun general = runCli({u"--help"_s});
    QCOMPARE(general.exitCode, 0);
    QVERIFY(general.out.startsWith(u"Usage: ddlcli <command> [options]"_s));
    for (const char *command : {"register",
                                "login",
                                "submit",
                                "list",
                                "progress",
                                "logs",
                                "cancel",
                                "download",
                                "version"}) {
        QVERIFY2(general.out.contains(u"\n  "_s + QLatin1StringView(command) + u' '), command);
    }
    QVERIFY(general.err.isEmpty());

    const CliRun submit = runCli({u"submit"_s, u"--help"_s});
    QCOMPARE(submit.exitCode, 0);
    QVERIFY(submit.out.startsWith(u"Usage: ddlcli submit [--task_config=FILE] "
                                  "[--job_config=FILE] [--priority=N] [--allow-unschedulable] "
                                  "[--output=FORMAT]"_s));
    QVERIFY(submit.out.contains(u"--server=URL"_s));

    const CliRun helpCommand = runCli({u"help"_s, u"logs"_s});
    QCOMPARE(helpCommand.exitCode, 0);
    QVERIFY(helpCommand.out.contains(u"-f, --follow"_s));
}

void TestCliArguments::commandErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("error");

    QTest::newRow("no command") << QStringList{} << 2
                                << u"ddlcli: error: no command given; run ddlcli --help for the "
                                   "list of commands\n"_s;
    QTest::newRow("unknown command")
        << QStringList{u"frobnicate"_s} << 2
        << u"ddlcli: error: unknown command 'frobnicate'; run ddlcli --help for the list of "
           "commands\n"_s;
    QTest::newRow("missing job uuid")
        << QStringList{u"progress"_s} << 2
        << u"ddlcli: error: missing required option --job_uuid=UUID; run ddlcli progress "
           "--help\n"_s;
    QTest::newRow("missing value")
        << QStringList{u"download"_s, u"--job_uuid=x"_s, u"--dest"_s} << 2
        << u"ddlcli: error: --dest needs a value (--dest=DIR); run ddlcli download --help\n"_s;
    QTest::newRow("unknown option")
        << QStringList{u"list"_s, u"--colour"_s} << 2
        << u"ddlcli: error: unknown option --colour; run ddlcli list --help\n"_s;
    QTest::newRow("stray argument")
        << QStringList{u"list"_s, u"extra"_s} << 2
        << u"ddlcli: error: unexpected argument 'extra'; run ddlcli list --help\n"_s;
    QTest::newRow("bad output format")
        << QStringList{u"list"_s, u"--output"_s, u"xml"_s} << 2
        << u"ddlcli: error: --output must be 'table' or 'json', not 'xml'\n"_s;
    QTest::newRow("bad limit") << QStringList{u"list"_s,
                                              u"--limit=0"_s,
                                              u"--server=https://127.0.0.1:1"_s}
                               << 2
                               << u"ddlcli: error: --limit must be a whole number > 0, not '0'\n"_s;
    QTest::newRow("bad state")
        << QStringList{u"list"_s, u"--state=DONE"_s, u"--server=https://127.0.0.1:1"_s} << 2
        << u"ddlcli: error: --state takes one or more of WAITING, RUNNING, SUCCEEDED, FAILED, "
           "STOPPED (comma-separated), not 'DONE'\n"_s;
    QTest::newRow("bad state among good ones")
        << QStringList{u"list"_s, u"--state=waiting,runing"_s, u"--server=https://127.0.0.1:1"_s}
        << 2
        << u"ddlcli: error: --state takes one or more of WAITING, RUNNING, SUCCEEDED, FAILED, "
           "STOPPED (comma-separated), not 'RUNING'\n"_s;
    QTest::newRow("zoo without an action")
        << QStringList{u"zoo"_s} << 2
        << u"ddlcli: error: say what to do: init, build or push; run ddlcli zoo --help\n"_s;
    QTest::newRow("zoo init without a base")
        << QStringList{u"zoo"_s, u"init"_s} << 2
        << u"ddlcli: error: zoo init needs --base_image=IMAGE, the image to start from; run "
           "ddlcli zoo --help\n"_s;
    QTest::newRow("zoo init with a bad index")
        << QStringList{u"zoo"_s, u"init"_s, u"--base_image=python:3.11"_s,
                       u"--extra_pypi_index=x; rm -rf /"_s}
        << 2
        << u"ddlcli: error: --extra_pypi_index=x; rm -rf / is not an http(s) URL; run ddlcli zoo "
           "--help\n"_s;
    QTest::newRow("zoo build without a name")
        << QStringList{u"zoo"_s, u"build"_s, u"."_s} << 2
        << u"ddlcli: error: zoo build needs --image=NAME, the name to give the image; run ddlcli "
           "zoo --help\n"_s;
    QTest::newRow("both configs")
        << QStringList{u"submit"_s, u"--task_config=a.yaml"_s, u"--job_config"_s, u"b.json"_s} << 2
        << u"ddlcli: error: pass either --task_config or --job_config, not both\n"_s;
    QTest::newRow("http server")
        << QStringList{u"list"_s, u"--server"_s, u"http://example.org"_s} << 2
        << u"ddlcli: error: 'http://example.org' does not use https; DDL servers only speak "
           "TLS, write https://example.org\n"_s;
    QTest::newRow("no server")
        << QStringList{u"list"_s} << 1
        << u"ddlcli: error: no server given; pass --server https://HOST:PORT, set DDL_SERVER, "
           "or log in once with --server so that it is remembered\n"_s;
    // The seed writes --task_config on progress and download: it parses, and the command goes on
    // (here to find that no server is known).
    QTest::newRow("seed's progress")
        << QStringList{u"progress"_s, u"--job_uuid=abc"_s, u"--task_config=task.yaml"_s} << 1
        << u"ddlcli: error: no server given; pass --server https://HOST:PORT, set DDL_SERVER, "
           "or log in once with --server so that it is remembered\n"_s;
    QTest::newRow("seed's download")
        << QStringList{u"download"_s,
                       u"--job_uuid=abc"_s,
                       u"--dest=model"_s,
                       u"--task_config=../task.yaml"_s}
        << 1
        << u"ddlcli: error: no server given; pass --server https://HOST:PORT, set DDL_SERVER, "
           "or log in once with --server so that it is remembered\n"_s;
    QTest::newRow("bad job uuid")
        << QStringList{u"progress"_s, u"--job_uuid=../../etc"_s} << 2
        << u"ddlcli: error: '../../etc' is not a job UUID or name; copy it from ddlcli submit "
           "or ddlcli list\n"_s;
    QTest::newRow("job name of dots")
        << QStringList{u"progress"_s, u"--job_uuid=.."_s} << 2
        << u"ddlcli: error: '..' is not a job UUID or name; copy it from ddlcli submit or "
           "ddlcli list\n"_s;
    QTest::newRow("bad fingerprint")
        << QStringList{u"list"_s,
                       u"--server=https://127.0.0.1:1"_s,
                       u"--trust-fingerprint=SHA256:AB"_s}
        << 2
        << u"ddlcli: error: 'SHA256:AB' is not a SHA-256 fingerprint; copy it as shown, e.g. "
           "SHA256:AB:CD:...(32 pairs)\n"_s;
}

void TestCliArguments::commandErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, error);
    qunsetenv("DDL_SERVER");
    qunsetenv("DDL_CA_CERT");
    const CliRun run = runCli(arguments);
    QCOMPARE(run.err, error);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY(run.out.isEmpty());
}

void TestCliArguments::helpWinsOverMissingOptions()
{
    const CliRun run = runCli({u"progress"_s, u"-h"_s});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains(u"--job_uuid=UUID"_s));
    QVERIFY(run.err.isEmpty());
}

QTEST_GUILESS_MAIN(TestCliArguments)
#include "tst_cli_arguments.moc"
