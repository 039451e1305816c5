// The desktop's models without a server: the job list's paging and merging (checked by
// QAbstractItemModelTester), the metric line parser and store, the task model.
#include "models/artifactmodel.h"
#include "models/joblistmodel.h"
#include "models/metricstore.h"
#include "models/taskmodel.h"
#include "models/workermodel.h"
#include "views/joblistview.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTimeZone>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTest>

using namespace Qt::Literals::StringLiterals;
using namespace ddl::desktop;

static JobRecord job(int number, const QString &state = u"SUCCEEDED"_s)
{
    JobRecord record;
    record.uuid = u"uuid-%1"_s.arg(number);
    record.name = u"job-%1"_s.arg(number);
    record.state = state;
    record.tasks = 1 + number % 3;
    record.createdAt = QDateTime::fromSecsSinceEpoch(1700000000 + number, Qt::UTC);
    return record;
}

// Jobs numbered from..to, newest (highest) first, as the server lists them.
static QList<JobRecord> page(int from, int to)
{
    QList<JobRecord> jobs;
    for (int n = to; n >= from; --n)
        jobs.append(job(n));
    return jobs;
}

class TestDesktopModels : public QObject
{
    Q_OBJECT

private slots:
    void jobListPagesAndMerges();
    void jobListOverlappingPageSkipsKnownJobs();
    void stateFilterDropsJobsThatLeft();
    void refreshFollowsTheServersOrder();
    void jobRecordFromWire();
    void metricLine_data();
    void metricLine();
    void metricStoreJoinsSplitLines();
    void taskModelUpdatesInPlace();
    void artifactTree();
    void workerModelMerges();
};

void TestDesktopModels::jobListPagesAndMerges()
{
    JobListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.appendPage(page(51, 100), 100);
    model.appendPage(page(1, 50), 100);
    QCOMPARE(model.rowCount(), 100);
    QCOMPARE(model.index(0, JobListModel::NameColumn).data().toString(), u"job-100"_s);
    QCOMPARE(model.index(99, JobListModel::NameColumn).data().toString(), u"job-1"_s);

    // A refresh: job 100 failed meanwhile, jobs 101 and 102 are new.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QList<JobRecord> top = page(101, 102);
    JobRecord failed = job(100, u"FAILED"_s);
    top.append(failed);
    top.append(page(90, 99));
    model.mergeRefresh(top, 102);
    QCOMPARE(model.rowCount(), 102);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted.first().at(1).toInt(), 0);
    QCOMPARE(inserted.first().at(2).toInt(), 1);
    QCOMPARE(changed.size(), 1); // only the row that changed
    QCOMPARE(model.rowOf(u"uuid-100"_s), 2);
    QCOMPARE(model.index(2, JobListModel::StateColumn).data(JobListModel::StateRole).toString(),
             u"FAILED"_s);
    QCOMPARE(model.rowOf(u"uuid-1"_s), 101);
    QCOMPARE(resets.size(), 0);
}

void TestDesktopModels::jobListOverlappingPageSkipsKnownJobs()
{
    JobListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.appendPage(page(11, 20), 20);
    // Two new jobs arrived before the next page was asked for: it overlaps by two.
    model.mergeRefresh(page(21, 22), 22);
    model.appendPage(page(9, 18), 22);
    QCOMPARE(model.rowCount(), 14);
    QCOMPARE(model.index(13, 0).data().toString(), u"job-9"_s);
    QCOMPARE(model.total(), 22);
}

// With a state filter, the background refresh drops the jobs that left the state: row removals,
// no reset, the selected job stays selected and where it was on screen.
void TestDesktopModels::stateFilterDropsJobsThatLeft()
{
    JobListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    JobListView view(&model);
    model.setStateFilter({u"RUNNING"_s}); // no client: the list starts over, empty
    QList<JobRecord> running;
    for (int n = 300; n >= 1; --n)
        running.append(job(n, u"RUNNING"_s));
    model.appendPage(running, 300);
    view.resize(700, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    QTableView *table = view.table();
    const QModelIndex selected = model.index(150, JobListModel::NameColumn); // job 150
    table->setCurrentIndex(selected);
    table->scrollTo(selected, QAbstractItemView::PositionAtCenter);
    QCOMPARE(view.selectedUuid(), u"uuid-150"_s);
    const int top = table->visualRect(selected).top();
    QVERIFY(top > 0);

    // Jobs 281-290 (rows 10-19, above the selection) and 100 (below it) ended meanwhile; the
    // server's answer holds the whole filtered list.
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QList<JobRecord> answer;
    for (const JobRecord &record : std::as_const(running)) {
        const int n = record.name.mid(4).toInt();
        if (!(n >= 281 && n <= 290) && n != 100)
            answer.append(record);
    }
    model.mergeRefresh(answer, answer.size());
    QCOMPARE(resets.size(), 0);
    QCOMPARE(removed.size(), 2); // one removal per run of adjacent rows
    QCOMPARE(model.rowCount(), 289);
    QCOMPARE(model.rowOf(u"uuid-285"_s), -1);
    QCOMPARE(model.rowOf(u"uuid-100"_s), -1);
    QCOMPARE(model.rowOf(u"uuid-280"_s), 10);
    QCOMPARE(model.rowOf(u"uuid-1"_s), 288);
    QCOMPARE(model.total(), 289);
    QCOMPARE(view.selectedUuid(), u"uuid-150"_s);
    QVERIFY(table->selectionModel()->isRowSelected(table->currentIndex().row()));
    QCOMPARE(table->visualRect(table->currentIndex()).top(), top);

    // An answer cut by its limit (50 of 288): only the rows it covers can have left; the rows
    // below it stay although it does not list them.
    answer.removeAt(1); // job 299
    model.mergeRefresh(answer.mid(0, 50), 288);
    QCOMPARE(model.rowCount(), 288);
    QCOMPARE(model.rowOf(u"uuid-299"_s), -1);
    QCOMPARE(model.rowOf(u"uuid-1"_s), 287);
    QCOMPARE(view.selectedUuid(), u"uuid-150"_s);
    QCOMPARE(table->visualRect(table->currentIndex()).top(), top);

    // The selected job itself leaves: it goes, the list stays consistent.
    answer.removeIf([](const JobRecord &record) { return record.uuid == u"uuid-150"_s; });
    model.mergeRefresh(answer, answer.size());
    QCOMPARE(model.rowCount(), 287);
    QCOMPARE(model.rowOf(u"uuid-150"_s), -1);
    QCOMPARE(resets.size(), 0);

    // Nothing is running any more: the filtered list empties, still without a reset.
    model.mergeRefresh({}, 0);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(resets.size(), 0);
}

// Sorted by a column the server orders by (here state): a refresh in which jobs changed place
// moves their rows (a layout change, no reset), new jobs land where the server puts them, and
// the selected job stays selected. Columns the server cannot order by change nothing.
void TestDesktopModels::refreshFollowsTheServersOrder()
{
    JobListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    JobListView view(&model);
    model.sort(JobListModel::StateColumn, Qt::AscendingOrder); // no client: starts over, empty
    QCOMPARE(model.sortColumn(), int(JobListModel::StateColumn));
    // FAILED before RUNNING before SUCCEEDED, each newest first.
    const QList<JobRecord> before{job(3, u"FAILED"_s), job(5, u"RUNNING"_s), job(4, u"RUNNING"_s),
                                  job(2, u"SUCCEEDED"_s), job(1, u"SUCCEEDED"_s)};
    model.appendPage(before, 5);
    view.table()->setCurrentIndex(model.index(model.rowOf(u"uuid-4"_s), 0));
    QCOMPARE(view.selectedUuid(), u"uuid-4"_s);

    // Job 4 failed and job 6 arrived running: the server's new order.
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy layouts(&model, &QAbstractItemModel::layoutChanged);
    const QList<JobRecord> after{job(4, u"FAILED"_s), job(3, u"FAILED"_s), job(6, u"RUNNING"_s),
                                 job(5, u"RUNNING"_s), job(2, u"SUCCEEDED"_s),
                                 job(1, u"SUCCEEDED"_s)};
    model.mergeRefresh(after, 6);
    QStringList order;
    for (int row = 0; row < model.rowCount(); ++row)
        order << model.record(row)->uuid;
    QCOMPARE(order, (QStringList{u"uuid-4"_s, u"uuid-3"_s, u"uuid-6"_s, u"uuid-5"_s,
                                 u"uuid-2"_s, u"uuid-1"_s}));
    QCOMPARE(resets.size(), 0);
    QCOMPARE(layouts.size(), 1);
    QCOMPARE(view.selectedUuid(), u"uuid-4"_s);
    QCOMPARE(view.table()->currentIndex().row(), 0);

    // The same order again moves nothing.
    model.mergeRefresh(after, 6);
    QCOMPARE(layouts.size(), 1);

    // GPUs: the server cannot order by it; the list and its order stay.
    view.table()->sortByColumn(JobListModel::GpusColumn, Qt::DescendingOrder);
    QCOMPARE(model.sortColumn(), int(JobListModel::StateColumn));
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(view.table()->horizontalHeader()->sortIndicatorSection(),
             int(JobListModel::StateColumn));
}

void TestDesktopModels::jobRecordFromWire()
{
    const QJsonObject wire{
        {"uuid"_L1, u"abc"_s}, {"name"_L1, u"mnist"_s}, {"state"_L1, u"RUNNING"_s},
        {"attempt"_L1, 2}, {"retry_count"_L1, 3},
        {"created_at"_L1, u"2026-01-02T03:04:05Z"_s},
        {"started_at"_L1, u"2026-01-02T03:04:15Z"_s}, {"finished_at"_L1, QJsonValue()},
        {"spec"_L1, QJsonObject{{"taskRoles"_L1, QJsonArray{
            QJsonObject{{"taskNumber"_L1, 2}, {"gpuNumber"_L1, 4}},
            QJsonObject{{"taskNumber"_L1, 1}, {"gpuNumber"_L1, 0}}}}}}};
    const JobRecord record = JobRecord::fromJson(wire);
    QCOMPARE(record.tasks, 3);
    QCOMPARE(record.gpus, 8);
    QCOMPARE(record.attempt, 2);
    QVERIFY(!record.isFinal());
    QCOMPARE(record.durationSeconds(QDateTime::fromString(u"2026-01-02T03:05:15Z"_s, Qt::ISODate)),
             60);
}

void TestDesktopModels::metricLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<int>("values");
    QTest::newRow("metric") << QByteArray(R"(DDL_METRIC {"step": 3, "loss": 0.5})") << 2;
    QTest::newRow("prefixed") << QByteArray(R"([w0] DDL_METRIC {"acc": 1})") << 1;
    QTest::newRow("strings skipped") << QByteArray(R"(DDL_METRIC {"tag": "x", "a": 2})") << 1;
    QTest::newRow("plain line") << QByteArray("epoch 3 loss 0.5") << 0;
    QTest::newRow("broken json") << QByteArray(R"(DDL_METRIC {"step": )") << 0;
    QTest::newRow("array") << QByteArray("DDL_METRIC [1, 2]") << 0;
}

void TestDesktopModels::metricLine()
{
    QFETCH(QByteArray, line);
    QFETCH(int, values);
    QCOMPARE(MetricStore::parseLine(line).size(), values);
}

void TestDesktopModels::metricStoreJoinsSplitLines()
{
    MetricStore store;
    QSignalSpy added(&store, &MetricStore::pointsAdded);
    store.feed("hello\nDDL_METRIC {\"step\": 1, \"lo");
    QCOMPARE(added.size(), 0);
    store.feed("ss\": 2.5}\nDDL_METRIC {\"step\": 2, \"loss\": 1.5, \"acc\": 0.7}\n");
    QCOMPARE(store.names(), (QStringList{u"acc"_s, u"loss"_s}));
    QCOMPARE(store.points(u"loss"_s), (QList<QPointF>{{1, 2.5}, {2, 1.5}}));
    QCOMPARE(store.points(u"acc"_s), (QList<QPointF>{{2, 0.7}}));
    QCOMPARE(added.size(), 1);
    QCOMPARE(added.first().first().toStringList(), (QStringList{u"loss"_s, u"acc"_s}));
}

void TestDesktopModels::taskModelUpdatesInPlace()
{
    TaskModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto task = [](int id, ddl::JobState state) {
        ddl::TaskMessage task;
        task.id = id;
        task.role = u"worker"_s;
        task.roleIndex = id - 1;
        task.state = state;
        return task;
    };
    model.setTasks({task(1, ddl::JobState::Running), task(2, ddl::JobState::Running)});
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setTasks({task(1, ddl::JobState::Running), task(2, ddl::JobState::Succeeded)});
    QCOMPARE(resets.size(), 0);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.label(1), u"worker #1"_s);
    QCOMPARE(model.index(1, TaskModel::StateColumn).data(TaskModel::StateRole).toString(),
             u"SUCCEEDED"_s);
    // The worker that ran a task, with its trust (docs/trust.md).
    ddl::TaskMessage placed = task(2, ddl::JobState::Succeeded);
    placed.worker = u"gpu-a"_s;
    placed.workerTrust = 40;
    model.setTasks({task(1, ddl::JobState::Running), placed});
    QCOMPARE(model.index(1, TaskModel::WorkerColumn).data().toString(), u"gpu-a (trust 40)"_s);
    QCOMPARE(model.index(0, TaskModel::WorkerColumn).data().toString(), QString());
}

void TestDesktopModels::artifactTree()
{
    ArtifactModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto file = [](const QString &path, qint64 size) {
        return QJsonObject{{"path"_L1, path}, {"size"_L1, QJsonValue(size)}, {"sha256"_L1, QString(u"x"_s + path)}};
    };
    model.setFiles(QJsonArray{file(u"model.npz"_s, 100), file(u"plots/loss.png"_s, 20),
                    file(u"plots/acc.png"_s, 30), file(u"plots/raw/a.csv"_s, 5)});
    QCOMPARE(model.fileCount(), 4);
    QCOMPARE(model.rowCount(), 2); // model.npz and plots/
    const QModelIndex plots = model.index(1, 0);
    QCOMPARE(plots.data(ArtifactModel::PathRole).toString(), u"plots"_s);
    QCOMPARE(plots.data(ArtifactModel::SizeRole).toLongLong(), 55);
    QCOMPARE(model.rowCount(plots), 3);
    QCOMPARE(model.filesUnder(plots).size(), 3);
    QCOMPARE(model.filesUnder({}).size(), 4);
    const QModelIndex raw = model.index(2, 0, plots);
    QCOMPARE(model.parent(raw), plots);
    QCOMPARE(model.index(0, 0, raw).data(ArtifactModel::PathRole).toString(), u"plots/raw/a.csv"_s);
}

void TestDesktopModels::workerModelMerges()
{
    WorkerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto worker = [](const QString &name, const QString &state, int running) {
        return QJsonObject{{"name"_L1, name}, {"state"_L1, state}, {"gpus"_L1, 2},
                           {"running_tasks"_L1, running}};
    };
    model.setWorkers(QJsonArray{worker(u"a"_s, u"ONLINE"_s, 0), worker(u"b"_s, u"ONLINE"_s, 1)});
    QCOMPARE(model.rowCount(), 2);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setWorkers(QJsonArray{worker(u"b"_s, u"LOST"_s, 0), worker(u"c"_s, u"ONLINE"_s, 0)});
    QCOMPARE(resets.size(), 0);
    QCOMPARE(removed.size(), 1);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, WorkerModel::StateColumn).data(WorkerModel::StateRole).toString(),
             u"LOST"_s);
    QCOMPARE(model.index(1, WorkerModel::NameColumn).data().toString(), u"c"_s);
    // The trust column shows the score, and the state when the worker is not verified.
    QJsonObject quarantined = worker(u"c"_s, u"ONLINE"_s, 0);
    quarantined.insert("trust"_L1, 0);
    quarantined.insert("trust_state"_L1, u"quarantined"_s);
    QJsonObject verified = worker(u"b"_s, u"LOST"_s, 0);
    verified.insert("trust"_L1, 70);
    verified.insert("trust_state"_L1, u"verified"_s);
    model.setWorkers(QJsonArray{verified, quarantined});
    QCOMPARE(model.index(0, WorkerModel::TrustColumn).data().toString(), u"70"_s);
    QCOMPARE(model.index(1, WorkerModel::TrustColumn).data().toString(), u"0 (quarantined)"_s);
}

QTEST_MAIN(TestDesktopModels)
#include "tst_desktop_models.moc"
