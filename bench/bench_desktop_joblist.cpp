// Fills ddl-desktop's job list with 100,000 jobs and prints how long it takes to load them and
// to scroll the table from top to bottom, and what a background refresh costs. The jobs arrive
// as the server's pages do (GET /v1/jobs JSON, 500 a page, parsed by JobRecord::fromJson); the
// view is the real JobListView (sorting on, done by the server; fixed row heights) in a 1200x800
// window.
// Run offscreen (QT_QPA_PLATFORM=offscreen) or under Xvfb.
//   bench_desktop_joblist [jobs]
#include "models/joblistmodel.h"
#include "views/joblistview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScrollBar>
#include <QTableView>
#include <cstdio>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

static const char *const States[] = {"WAITING", "RUNNING", "SUCCEEDED", "FAILED", "STOPPED"};

// One page of the wire's job list, newest first, as bytes (what the network hands over).
static QByteArray wirePage(int newest, int count, int changed = -1)
{
    QJsonArray jobs;
    for (int n = newest; n > newest - count && n > 0; --n) {
        const QDateTime created = QDateTime::fromSecsSinceEpoch(1700000000LL + n, Qt::UTC);
        jobs.append(QJsonObject{
            {"uuid"_L1, u"00000000-0000-4000-8000-%1"_s.arg(n, 12, 10, QChar(u'0'))},
            {"name"_L1, u"experiment-%1"_s.arg(n)},
            {"state"_L1, QLatin1String(States[(n + (n == changed ? 1 : 0)) % 5])},
            {"kind"_L1, u"ddl"_s},
            {"attempt"_L1, 1 + n % 2},
            {"retry_count"_L1, 1},
            {"created_at"_L1, created.toString(Qt::ISODate)},
            {"started_at"_L1, created.addSecs(5).toString(Qt::ISODate)},
            {"finished_at"_L1, n % 5 >= 2 ? QJsonValue(created.addSecs(65).toString(Qt::ISODate))
                                          : QJsonValue()},
            {"spec"_L1, QJsonObject{{"taskRoles"_L1, QJsonArray{QJsonObject{
                            {"name"_L1, u"worker"_s}, {"taskNumber"_L1, 1 + n % 4},
                            {"gpuNumber"_L1, n % 3}}}}}}});
    }
    return QJsonDocument(QJsonObject{{"jobs"_L1, jobs}, {"total"_L1, newest}}).toJson(
        QJsonDocument::Compact);
}

static QList<JobRecord> parsePage(const QByteArray &bytes)
{
    QList<JobRecord> records;
    const QJsonArray jobs = QJsonDocument::fromJson(bytes).object().value("jobs"_L1).toArray();
    records.reserve(jobs.size());
    for (const QJsonValue &job : jobs)
        records.append(JobRecord::fromJson(job.toObject()));
    return records;
}

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    const int total = argc > 1 ? QByteArray(argv[1]).toInt() : 100000;
    const int pageSize = JobListModel::PageSize;

    // The pages as they would come off the wire; making them is not part of the timing.
    QList<QByteArray> pages;
    for (int newest = total; newest > 0; newest -= pageSize)
        pages.append(wirePage(newest, pageSize));

    JobListModel model;
    JobListView view(&model);
    view.resize(1200, 800);
    view.show();
    QCoreApplication::processEvents();

    QElapsedTimer timer;
    timer.start();
    double parseMs = 0;
    for (const QByteArray &page : std::as_const(pages)) {
        QElapsedTimer parse;
        parse.start();
        const QList<JobRecord> records = parsePage(page);
        parseMs += parse.nsecsElapsed() / 1e6;
        model.appendPage(records, total);
        QCoreApplication::processEvents(); // the view reacts to each page as it would live
    }
    view.table()->viewport()->repaint();
    const double loadMs = timer.nsecsElapsed() / 1e6;

    QScrollBar *bar = view.table()->verticalScrollBar();
    bar->setValue(0);
    QCoreApplication::processEvents();
    int frames = 0;
    double worstMs = 0;
    timer.restart();
    while (bar->value() < bar->maximum()) {
        QElapsedTimer frame;
        frame.start();
        bar->setValue(bar->value() + bar->pageStep());
        view.table()->viewport()->repaint(); // paint the new page now, as a frame would
        ++frames;
        worstMs = std::max(worstMs, frame.nsecsElapsed() / 1e6);
    }
    const double scrollMs = timer.nsecsElapsed() / 1e6;

    // A background refresh: the top 1000 jobs again, 10 of them changed, nothing new.
    QByteArray refresh = wirePage(total, JobListModel::MaxRefreshRows, total - 500);
    timer.restart();
    model.mergeRefresh(parsePage(refresh), total);
    QCoreApplication::processEvents();
    const double refreshMs = timer.nsecsElapsed() / 1e6;

    std::printf("jobs: %d (pages of %d)\n", model.rowCount(), pageSize);
    std::printf("load (parse + insert + view): %.0f ms, of which JSON parsing %.0f ms\n", loadMs,
                parseMs);
    std::printf("scroll top to bottom: %.0f ms for %d pages (%.2f ms a page, worst %.2f ms)\n",
                scrollMs, frames, frames ? scrollMs / frames : 0.0, worstMs);
    std::printf("background refresh of the top %d rows: %.1f ms\n", JobListModel::MaxRefreshRows,
                refreshMs);
    return model.rowCount() == total ? 0 : 1;
}
