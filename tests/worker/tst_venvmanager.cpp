// Virtual environments for requirements.txt, made with the real python3 -m venv and pip.
#include "config/workerconfig.h"
#include "prerequisite.h"
#include "runner/venvmanager.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl::worker;

namespace {

struct Preparation
{
    QByteArray output;
    std::optional<ddl::Result<QString>> result;
};

} // namespace

class tst_VenvManager : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void indexUnreachable_data();
    void indexUnreachable();
    void satisfiedRequirementsAreBuiltOnceAndShared();
    void unsatisfiableRequirementFailsClearly();

private:
    QString writeRequirements(const QString &name, const QByteArray &content);
    void prepare(VenvManager &manager, const QString &requirements, Preparation &into);

    QTemporaryDir m_dir;
};

void tst_VenvManager::initTestCase()
{
    QProcess probe;
    probe.start(defaultPythonInterpreter(), {u"-c"_s, u"import venv, ensurepip, numpy"_s});
    DDL_REQUIRE_PREREQUISITE(probe.waitForFinished(30000) && probe.exitCode() == 0,
                             u"needs python3 with venv, ensurepip and numpy (python3-venv, "
                             u"python3-numpy)"_s);
}

void tst_VenvManager::indexUnreachable_data()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<bool>("unreachable");
    QTest::newRow("dns")
        << QByteArray(
               "WARNING: Retrying (Retry(total=0...)) after connection broken by "
               "'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object>: "
               "Failed "
               "to establish a new connection: [Errno -3] Temporary failure in name resolution')'")
        << true;
    QTest::newRow("timeout") << QByteArray("ConnectTimeoutError(... 'Connection to pypi.org "
                                           "timed out. (connect timeout=5)')")
                             << true;
    QTest::newRow("no such package")
        << QByteArray("ERROR: Could not find a version that satisfies the requirement nopkg (from "
                      "versions: "
                      "none)\nERROR: No matching distribution found for nopkg")
        << false;
}

void tst_VenvManager::indexUnreachable()
{
    QFETCH(QByteArray, output);
    QTEST(pipOutputSaysIndexUnreachable(output), "unreachable");
}

QString tst_VenvManager::writeRequirements(const QString &name, const QByteArray &content)
{
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(content);
    return path;
}

void tst_VenvManager::prepare(VenvManager &manager, const QString &requirements, Preparation &into)
{
    manager.prepare(
        requirements,
        this,
        [&into](const QByteArray &bytes) { into.output += bytes; },
        [&into](const ddl::Result<QString> &result) { into.result = result; });
}

void tst_VenvManager::satisfiedRequirementsAreBuiltOnceAndShared()
{
    VenvManager manager(m_dir.filePath(u"venvs"_s), defaultPythonInterpreter());
    const QString requirements = writeRequirements(u"ok.txt"_s, "numpy\n");
    Preparation first, second;
    prepare(manager, requirements, first);
    prepare(manager, requirements, second); // joins the same build
    QTRY_VERIFY_WITH_TIMEOUT(first.result && second.result, 180000);
    QVERIFY2(first.result->ok(), first.output.constData());
    QVERIFY(second.result->ok());
    QCOMPARE(**first.result, **second.result);
    QVERIFY(first.output.contains("-m venv --system-site-packages"));
    QVERIFY(second.output.contains("waiting for the Python environment"));
    QVERIFY(QFile::exists(**first.result + u"/.ddl-ready"_s));

    // The venv sees the system's numpy.
    QProcess python;
    python.start(VenvManager::pythonOf(**first.result), {u"-c"_s, u"import numpy"_s});
    QVERIFY(python.waitForFinished(30000));
    QCOMPARE(python.exitCode(), 0);

    // Later tasks reuse it at once.
    Preparation third;
    prepare(manager, requirements, third);
    QTRY_VERIFY_WITH_TIMEOUT(third.result.has_value(), 2000);
    QVERIFY(third.result->ok());
    QVERIFY(third.output.contains("reusing the Python environment"));
}

void tst_VenvManager::unsatisfiableRequirementFailsClearly()
{
    VenvManager manager(m_dir.filePath(u"venvs-bad"_s), defaultPythonInterpreter());
    const QString requirements =
        writeRequirements(u"bad.txt"_s, "ddl-test-no-such-package-4d1f==1.0\n");
    Preparation preparation;
    prepare(manager, requirements, preparation);
    QTRY_VERIFY_WITH_TIMEOUT(preparation.result.has_value(), 240000);
    QVERIFY(!preparation.result->ok());
    const QString message = preparation.result->error().message;
    if (preparation.output.contains("package index unreachable")) {
        // Offline: the log says so plainly, then the offline attempt fails.
        QVERIFY(preparation.output.contains("--no-index"));
        QVERIFY2(message.contains(u"package index is unreachable"), qPrintable(message));
    } else {
        QVERIFY2(message.contains(u"pip install -r requirements.txt failed"), qPrintable(message));
    }
    // A failed environment leaves nothing to be mistaken for a ready one.
    QVERIFY(QDir(m_dir.filePath(u"venvs-bad"_s))
                .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                .isEmpty());
}

QTEST_GUILESS_MAIN(tst_VenvManager)
#include "tst_venvmanager.moc"
