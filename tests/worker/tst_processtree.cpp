// Cancelling a task ends its whole process tree: real /bin/sh processes that spawn children.
#include "process/processtree.h"
#include "runner/taskprocess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ddl::worker;
using ddl::TaskLease;

namespace {

// Alive means running or sleeping: a zombie waiting for a parent that does not reap is gone.
bool alive(qint64 pid)
{
    QFile stat(u"/proc/%1/stat"_s.arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close > 0 && text.size() > close + 2 && text.at(close + 2) != 'Z' &&
           text.at(close + 2) != 'X';
}

} // namespace

class tst_ProcessTree : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cancelEndsEveryDescendant();
    void sigtermIgnoredGetsSigkillAfterGrace();
    void leftoverChildrenEndWithTheTask();

private:
    LaunchSpec shell(const QString &command) const;
    QList<qint64> readPids() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    TaskPaths m_paths;
};

void tst_ProcessTree::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_paths = TaskPaths::forTask(m_dir->path(), 1);
    QVERIFY(QDir().mkpath(m_paths.codeDir));
    QVERIFY(QDir().mkpath(m_paths.outputDir));
}

LaunchSpec tst_ProcessTree::shell(const QString &command) const
{
    LaunchSpec launch;
    launch.kind = TaskLease::Kind::OpenPai;
    launch.command = command;
    launch.paths = m_paths;
    launch.environment = QProcessEnvironment::systemEnvironment();
    return launch;
}

QList<qint64> tst_ProcessTree::readPids() const
{
    QFile file(m_paths.codeDir + u"/pids"_s);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<qint64> pids;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (!line.trimmed().isEmpty())
            pids.append(line.trimmed().toLongLong());
    }
    return pids;
}

void tst_ProcessTree::cancelEndsEveryDescendant()
{
    // Children, a grandchild in a subshell, and the subshell itself.
    TaskProcess process;
    QByteArray output;
    bool finished = false;
    connect(&process, &TaskProcess::output, this, [&](const QByteArray &b) { output += b; });
    connect(&process, &TaskProcess::finished, this, [&] { finished = true; });
    process.start(shell(u"sleep 300 & echo $! > pids; sleep 300 & echo $! >> pids; "
                        u"(sleep 300 & echo $! >> pids; wait) & echo $! >> pids; "
                        u"sleep 0.2; echo ready; wait"_s));
    QTRY_VERIFY_WITH_TIMEOUT(output.contains("ready"), 10000);
    const QList<qint64> pids = readPids();
    QCOMPARE(pids.size(), 4);
    for (qint64 pid : pids)
        QVERIFY(alive(pid));
    const qint64 leader = process.processId();
    QVERIFY(processtree::treeAlive(leader));

    QElapsedTimer clock;
    clock.start();
    process.terminate(5000);
    QTRY_VERIFY_WITH_TIMEOUT(finished, 10000);
    QVERIFY2(clock.elapsed() < 4000, "SIGTERM alone should have ended the tree");
    for (qint64 pid : pids)
        QTRY_VERIFY_WITH_TIMEOUT(!alive(pid), 5000);
    QVERIFY(!processtree::treeAlive(leader));
}

void tst_ProcessTree::sigtermIgnoredGetsSigkillAfterGrace()
{
    TaskProcess process;
    QByteArray output;
    bool finished = false;
    connect(&process, &TaskProcess::output, this, [&](const QByteArray &b) { output += b; });
    connect(&process, &TaskProcess::finished, this, [&] { finished = true; });
    // An ignored signal stays ignored across exec, so the child ignores SIGTERM as well.
    process.start(shell(u"trap '' TERM; sleep 300 & echo $! > pids; echo ready; "
                        u"while true; do sleep 0.1; done"_s));
    QTRY_VERIFY_WITH_TIMEOUT(output.contains("ready"), 10000);
    const QList<qint64> pids = readPids();
    QCOMPARE(pids.size(), 1);

    QElapsedTimer clock;
    clock.start();
    process.terminate(700);
    QTest::qWait(300);
    QVERIFY(!finished);
    QVERIFY(alive(pids.first()));
    QTRY_VERIFY_WITH_TIMEOUT(finished, 10000);
    QVERIFY(clock.elapsed() >= 650);
    QTRY_VERIFY_WITH_TIMEOUT(!alive(pids.first()), 5000);
}

void tst_ProcessTree::leftoverChildrenEndWithTheTask()
{
    TaskProcess process;
    int exitCode = -100;
    connect(&process, &TaskProcess::finished, this, [&](int code) { exitCode = code; });
    process.start(shell(u"sleep 300 & echo $! > pids; exit 0"_s));
    QTRY_VERIFY_WITH_TIMEOUT(exitCode != -100, 10000);
    QCOMPARE(exitCode, 0);
    const QList<qint64> pids = readPids();
    QCOMPARE(pids.size(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(!alive(pids.first()), 5000);
}

QTEST_GUILESS_MAIN(tst_ProcessTree)
#include "tst_processtree.moc"
