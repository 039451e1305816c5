// The job detail's live log view with a 1 GiB log, against a real ddl-server and ddl-worker on
// loopback (the desktop tests' ClusterHarness): log in through the real MainWindow, run one task
// (`echo hello`) to SUCCEEDED, grow its log to 1 GiB of numbered lines with three "MARKER" lines
// (at 10%, 50% and 99%), then time what a person does in the job's Logs tab. The log is written
// straight into the server's data dir (logs/<task id>.log), not streamed by the worker. Prints the
// GUI thread's longest stall and the process's peak RSS (VmHWM) before and after.
// Run offscreen: QT_QPA_PLATFORM=offscreen bench_desktop_logview
#include "clusterharness.h"
#include "desktoptestsupport.h"

#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "core/session.h"
#include "jobs/jobsubmission.h"
#include "jobs/logsearcher.h"
#include "jobs/logwindowloader.h"
#include "models/taskmodel.h"
#include "views/jobdetailview.h"
#include "views/logview.h"
#include "views/mainwindow.h"

#include <QApplication>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

static constexpr qint64 LogBytes = qint64(1) << 30;
static constexpr qint64 PieceBytes = 4 * 1024 * 1024;
static constexpr int LineBytes = 64;

// Runs the event loop until done() holds (false after timeoutMs). No sleeps: the stall timer's
// 5 ms ticks wake it, so a figure is as fine as the loop's own latency.
static bool waitUntil(const std::function<bool()> &done, int timeoutMs = 120000)
{
    QElapsedTimer timer;
    timer.start();
    while (!done()) {
        if (timer.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
    return true;
}

static long peakRssKiB()
{
    QFile status(u"/proc/self/status"_s);
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').first().toLong();
    }
    return -1;
}

// Appends numbered 64-byte lines in 4 MiB pieces until the file is exactly LogBytes long; the
// lines at 10%, 50% and 99% of the file say MARKER. Returns the last line, or empty on failure.
static QByteArray growLog(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::Append))
        return {};
    const qint64 first = file.size();
    const qint64 lines = (LogBytes - first) / LineBytes;
    const qint64 markers[] = {lines / 10, lines / 2, lines * 99 / 100};
    QByteArray piece(PieceBytes, '\0');
    char line[LineBytes + 1];
    qint64 n = 0;
    while (n < lines) {
        qsizetype at = 0;
        for (; at + LineBytes <= PieceBytes && n < lines; at += LineBytes, ++n) {
            const bool marker =
                std::find(std::begin(markers), std::end(markers), n) != std::end(markers);
            const int used = std::snprintf(
                line, sizeof line, marker ? "MARKER line %012lld " : "line %012lld of the log ", n);
            std::memset(line + used, '.', LineBytes - used - 1);
            line[LineBytes - 1] = '\n';
            std::memcpy(piece.data() + at, line, LineBytes);
        }
        if (file.write(piece.constData(), at) != at)
            return {};
    }
    // What 64-byte lines leave over to reach the exact size: one short last line.
    const qint64 rest = LogBytes - file.size();
    if (rest > 0 && file.write(QByteArray(rest - 1, 'z') + '\n') != rest)
        return {};
    return QByteArray(line, LineBytes - 1);
}

static int fail(const char *what, ClusterHarness &cluster)
{
    std::fprintf(stderr, "bench_desktop_logview: %s\n%s\n", what, qPrintable(cluster.serverLog()));
    return 1;
}

// Times what a person does in the job's Logs tab, its log now 1 GiB: each figure runs from the
// action to the moment its result is in the view (painted). False at the first that never shows.
static bool timeLogView(MainWindow &window, const QString &uuid, const QByteArray &lastLine)
{
    QElapsedTimer timer;
    LogView *logs = nullptr;
    const auto shown = [&](const char *what,
                           const std::function<bool()> &done,
                           bool restart = true) {
        const bool ok = waitUntil(done);
        logs->text()->viewport()->repaint();
        std::printf("%-46s %6.0f ms%s\n", what, timer.nsecsElapsed() / 1e6, ok ? "" : " FAILED");
        if (restart)
            timer.restart(); // the next action follows at once
        return ok;
    };
    // A window from loadAt starts on the first line at or after the offset asked for.
    const auto windowAt = [&](qint64 offset) {
        const qint64 start = logs->loader()->windowStart();
        return start >= offset && start <= offset + LineBytes;
    };
    const auto selected = [&](qint64 after, int number) {
        const QString status = QCoreApplication::translate("ddl::desktop::LogView", "%1 of %2")
                                   .arg(QString::number(number), u"3"_s);
        return logs->text()->textCursor().selectedText() == u"MARKER"_s &&
               logs->loader()->windowStart() > after &&
               (number == 0 || logs->findChild<QLabel *>(u"searchStatus"_s)->text() == status);
    };

    timer.start();
    JobDetailView *detail = window.openJob(uuid);
    logs = detail->logView();
    detail->tabs()->setCurrentWidget(logs);
    if (!shown("open the job: tail window shown (following)", [&] {
            return logs->loader() && logs->loader()->logSize() == LogBytes &&
                   logs->text()->toPlainText().contains(QString::fromLatin1(lastLine));
        }))
        return false;
    logs->findChild<QCheckBox *>(u"followCheck"_s)->setChecked(false);
    logs->loader()->loadAt(LogBytes / 2);
    if (!shown("jump to the middle (loader's loadAt)", [&] { return windowAt(LogBytes / 2); }))
        return false;
    logs->loader()->loadAt(0);
    if (!shown("jump to the start", [&] { return windowAt(0); }))
        return false;
    auto *next = logs->findChild<QPushButton *>(u"findNextButton"_s);
    logs->findChild<QLineEdit *>(u"logSearch"_s)->setText(u"MARKER"_s);
    next->click();
    // The count may reach 3 before or after the first match is selected.
    if (!shown(
            "search \"MARKER\": first match (10%) selected",
            [&] { return selected(LogBytes / 20, 0); },
            false) ||
        !shown("  ...the count says \"1 of 3\" (from that Next)",
               [&] { return selected(LogBytes / 20, 1) && logs->searcher()->countComplete(); }))
        return false;
    next->click();
    if (!shown("Next: second match (50%) selected", [&] { return selected(LogBytes * 4 / 10, 2); }))
        return false;
    next->click();
    if (!shown("Next: last match (99%) selected", [&] { return selected(LogBytes * 9 / 10, 3); }))
        return false;
    std::printf("text in the view at the end: %lld KiB\n",
                qint64(logs->text()->toPlainText().toUtf8().size()) / 1024);
    return true;
}

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    if (qEnvironmentVariableIsEmpty("DDL_BIN_DIR")) // ddl-server and ddl-worker lie beside us
        qputenv("DDL_BIN_DIR", QCoreApplication::applicationDirPath().toLocal8Bit());
    ClusterHarness cluster;
    if (!cluster.startServer() || !cluster.startWorker())
        return fail("the server or the worker did not start", cluster);
    QTemporaryDir config;
    DesktopSettings settings(config.filePath(u"ddl-desktop.ini"_s));
    settings.setUseKeychain(false);
    MainWindow window(settings);
    WorkspaceBuilder::build(window);
    window.resize(1200, 800);
    window.show();
    QString problem = connectAndTrust(window, cluster.serverUrl());
    if (problem.isEmpty())
        problem = registerThroughUi(window, u"ada@example.com"_s, u"analytical engine"_s);
    if (!problem.isEmpty())
        return fail(qPrintable(problem), cluster);

    // The 5 ms stall timer runs from here on; it also wakes waitUntil.
    QElapsedTimer sinceTick;
    qint64 worstGapNs = 0;
    QTimer ticks;
    ticks.setTimerType(Qt::PreciseTimer);
    QObject::connect(&ticks, &QTimer::timeout, [&] {
        worstGapNs = std::max(worstGapNs, sinceTick.nsecsElapsed());
        sinceTick.start();
    });
    ticks.start(5);
    sinceTick.start();

    ddl::TaskRole role;
    role.name = u"main"_s;
    role.memoryMB = 256;
    role.command = u"echo hello"_s;
    SubmissionRequest request;
    request.spec.kind = ddl::JobSpec::Kind::OpenPai;
    request.spec.jobName = u"one-gib-log"_s;
    request.spec.image = u"python3"_s;
    request.spec.taskRoles = {role};
    JobSubmission submission(window.session()->client(), request);
    submission.start();
    if (!waitUntil([&] { return submission.stage() == JobSubmission::Stage::Done; }, 30000))
        return fail("the job was not submitted", cluster);
    const QString uuid = submission.jobUuid();
    JobDetailView *detail = window.openJob(uuid);
    if (!waitUntil([&] {
            return detail->state() == u"SUCCEEDED"_s && detail->logView()->loader() &&
                   detail->logView()->loader()->isComplete() &&
                   detail->logView()->text()->toPlainText().contains(u"hello"_s);
        }))
        return fail("the job did not succeed with its log complete", cluster);
    const qint64 taskId = detail->tasks()->taskId(0);
    // Closed as a person closes the tab; it is opened again once the log is 1 GiB.
    emit window.workspace()->tabCloseRequested(window.workspace()->indexOf(detail));
    waitUntil([&] { return !window.jobView(uuid); });

    const QString logPath = cluster.path(u"server/logs/%1.log"_s.arg(taskId));
    QElapsedTimer timer;
    timer.start();
    const QByteArray lastLine = growLog(logPath);
    if (lastLine.isEmpty() || QFile(logPath).size() != LogBytes) {
        QFile::remove(logPath);
        return fail("the 1 GiB log could not be written", cluster);
    }
    std::printf("log of task %lld: 1 GiB of 64-byte numbered lines written directly into the "
                "server's data dir (not streamed by the worker) in %.1f s; page cache warm\n",
                taskId,
                timer.nsecsElapsed() / 1e9);
    const long rssBefore = peakRssKiB();
    sinceTick.start();
    worstGapNs = 0;
    const bool ok = timeLogView(window, uuid, lastLine);
    ticks.stop();
    const long rssAfter = peakRssKiB();
    std::printf("GUI thread's longest stall (5 ms timer, from opening the job): %.0f ms\n",
                worstGapNs / 1e6);
    std::printf("peak RSS (VmHWM) of the desktop process: %.1f MiB before opening the 1 GiB log, "
                "%.1f MiB after all of the above\n",
                rssBefore / 1024.0,
                rssAfter / 1024.0);
    QFile::remove(logPath); // the rest of the temp dir goes with the harness
    return ok ? 0 : 1;
}
