#include "jobdetailview.h"

#include "api/apiclient.h"
#include "core/errortext.h"
#include "core/requestcallback.h"
#include "jobs/metriccollector.h"
#include "models/jobrecord.h"
#include "models/metricstore.h"
#include "models/taskmodel.h"
#include "views/artifactbrowser.h"
#include "views/failuresummary.h"
#include "views/jobutilisationview.h"
#include "views/logview.h"
#include "views/metricchartsview.h"
#include "views/statetimeline.h"
#include "views/stopconfirmation.h"
#include "wire/jobstate.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QFontDatabase>
#include <QJsonDocument>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

JobDetailView::JobDetailView(ApiClient *client, const QString &uuid, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_uuid(uuid)
    , m_tasks(new TaskModel(this))
    , m_metrics(new MetricStore(this))
{
    m_titleLabel = new QLabel(this);
    m_titleLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stateLabel = new QLabel(this);
    m_stateLabel->setObjectName(u"jobState"_s);
    m_timelineLabel = new QLabel(this);
    m_timelineLabel->setObjectName(u"timeline"_s);
    m_timeline = new StateTimeline(this);
    m_reasonLabel = new QLabel(this);
    m_reasonLabel->setWordWrap(true);
    m_checkpointLabel = new QLabel(this);
    m_checkpointLabel->setObjectName(u"checkpoints"_s);
    m_checkpointLabel->setWordWrap(true);
    m_cancelButton = new QPushButton(tr("Cancel job"), this);
    m_cancelButton->setObjectName(u"cancelButton"_s);
    // A destructive button never takes the keyboard by default: one Space press must not stop
    // a job (it asks first in any case).
    m_cancelButton->setAutoDefault(false);
    m_cancelButton->setFocusPolicy(Qt::TabFocus);
    m_cloneButton = new QPushButton(tr("Clone into editor"), this);
    m_cloneButton->setObjectName(u"cloneButton"_s);

    m_taskTable = new QTableView(this);
    m_taskTable->setObjectName(u"taskTable"_s);
    m_taskTable->setModel(m_tasks);
    m_taskTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_taskTable->verticalHeader()->hide();
    m_taskTable->horizontalHeader()->setStretchLastSection(true);

    m_logView = new LogView(client, uuid, m_tasks, this);
    m_charts = new MetricChartsView(this);
    m_charts->setStore(m_metrics);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(u"detailTabs"_s);
    m_tabs->addTab(m_logView, tr("Logs"));
    m_tabs->addTab(m_charts, tr("Metrics"));
    m_utilisation = new JobUtilisationView(client, uuid, this);
    m_tabs->addTab(m_utilisation, tr("Utilisation"));
    m_artifacts = new ArtifactBrowser(client, uuid, this);
    m_tabs->addTab(m_artifacts, tr("Artifacts"));
    // The job as submitted (the spec the server keeps), to read or copy.
    m_config = new QPlainTextEdit(this);
    m_config->setObjectName(u"jobConfig"_s);
    m_config->setReadOnly(true);
    m_config->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs->addTab(m_config, tr("Config"));
    m_failure = new FailureSummary(client, uuid, this);

    auto *header = new QHBoxLayout;
    auto *headerText = new QVBoxLayout;
    headerText->addWidget(m_titleLabel);
    headerText->addWidget(m_stateLabel);
    headerText->addWidget(m_timelineLabel);
    headerText->addWidget(m_timeline);
    headerText->addWidget(m_reasonLabel);
    headerText->addWidget(m_checkpointLabel);
    headerText->addWidget(m_failure);
    header->addLayout(headerText, 1);
    header->addWidget(m_cloneButton, 0, Qt::AlignTop);
    header->addWidget(m_cancelButton, 0, Qt::AlignTop);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_taskTable);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({110, 520}); // a few task rows; the logs get the room
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(splitter, 1);
    // Opening a job puts the keyboard on its tasks, not on the first button.
    setFocusProxy(m_taskTable);
    setTabOrder(m_taskTable, m_tabs);

    connect(m_cancelButton, &QPushButton::clicked, this, &JobDetailView::cancelJob);
    connect(m_cloneButton, &QPushButton::clicked, this, [this] {
        if (m_job)
            emit cloneRequested(m_job->spec);
    });
    connect(m_taskTable, &QTableView::clicked, this, [this](const QModelIndex &index) {
        const qint64 taskId = m_tasks->taskId(index.row());
        if (m_logView->shownTask() != taskId)
            m_logView->selectTask(taskId);
        startMetrics(taskId);
    });
    m_pollTimer.setInterval(PollMs);
    connect(&m_pollTimer, &QTimer::timeout, this, &JobDetailView::poll);
    m_pollTimer.start();
    poll();
}

void JobDetailView::poll()
{
    if (!m_client || m_polling)
        return;
    m_polling = true;
    whenFinished(m_client->job(m_uuid), this, [this](const Result<ApiResponse> &result) {
        m_polling = false;
        if (!result) {
            if (isUnauthorized(result.error()))
                emit authFailed();
            emit failed(ErrorText::describe(result.error()));
            return;
        }
        handleJob(result->json());
    });
}

static QString timeText(const QDateTime &time)
{
    return QLocale().toString(time.toLocalTime(), QLocale::ShortFormat);
}

// Where each task's next attempt would start (docs/checkpoints.md): one line per task that
// saved a checkpoint.
QString JobDetailView::checkpointText(const QJsonArray &checkpoints)
{
    QStringList lines;
    for (const QJsonValue &value : checkpoints) {
        const QJsonObject checkpoint = value.toObject();
        const QDateTime at =
            QDateTime::fromString(checkpoint.value(u"created_at"_s).toString(), Qt::ISODate);
        lines << tr("Checkpoint of %1 #%2: from attempt %3 at %4, %5")
                     .arg(checkpoint.value(u"role"_s).toString())
                     .arg(checkpoint.value(u"role_index"_s).toInt())
                     .arg(checkpoint.value(u"attempt"_s).toInt())
                     .arg(timeText(at),
                          QLocale().formattedDataSize(checkpoint.value(u"size"_s).toInteger()));
    }
    return lines.join(u'\n');
}

void JobDetailView::handleJob(const QJsonObject &answer)
{
    Result<JobMessage> read = JobMessage::fromJson(answer);
    if (!read) {
        // A state a newer server added: say so instead of showing half a job.
        emit failed(ErrorText::describe(read.error()));
        return;
    }
    const QString previous = state();
    m_job = std::move(*read);
    const JobMessage &job = *m_job;
    const JobRecord record = JobRecord::fromMessage(job);
    m_titleLabel->setText(u"<b>"_s + record.name.toHtmlEscaped() + u"</b> <small>"_s + m_uuid
                          + u"</small>"_s);
    m_stateLabel->setText(tr("State: <span style=\"color:%1\"><b>%2</b></span>")
                              .arg(JobStateStyle::color(record.state).name(),
                                   JobStateStyle::displayName(record.state)));
    QStringList steps{tr("Submitted %1").arg(timeText(record.createdAt))};
    if (record.startedAt.isValid())
        steps << tr("started %1").arg(timeText(record.startedAt));
    if (record.finishedAt.isValid())
        steps << tr("%1 %2").arg(JobStateStyle::displayName(record.state).toLower(),
                                 timeText(record.finishedAt));
    // Preempted attempts spend no retry (docs/owners.md): they are counted on their own.
    if (record.attempt > 1 && job.preemptions > 0) {
        steps << tr("attempt %1 (%n preempted)", nullptr, job.preemptions).arg(record.attempt);
    } else if (record.attempt > 1) {
        steps << tr("attempt %1 of %2").arg(record.attempt).arg(record.retryCount + 1);
    }
    const qint64 duration = record.durationSeconds(QDateTime::currentDateTimeUtc());
    QString timeline = steps.join(u" → "_s);
    if (duration >= 0)
        timeline += u"  ("_s + JobStateStyle::formatDuration(duration) + u')';
    m_timelineLabel->setText(timeline);
    m_timeline->setJob(job);
    m_reasonLabel->setText(record.state == stateName(JobState::Waiting) ? record.reason
                                                                        : QString());
    m_checkpointLabel->setText(checkpointText(answer.value(u"checkpoints"_s).toArray()));
    m_checkpointLabel->setVisible(!m_checkpointLabel->text().isEmpty());
    m_cancelButton->setEnabled(!record.isFinal());
    m_failure->setJob(job);
    m_utilisation->setJobState(record.state);
    if (m_config->toPlainText().isEmpty() && !job.spec.isEmpty())
        m_config->setPlainText(QString::fromUtf8(QJsonDocument(job.spec).toJson()));
    m_tasks->setTasks(job.tasks);
    if (!m_collector && m_tasks->rowCount() > 0)
        startMetrics(m_tasks->taskId(0));
    if (record.isFinal()) {
        m_pollTimer.stop();
        // Outputs are uploaded before a task reports its end: list them once.
        if (previous != record.state)
            m_artifacts->reload();
    }
    emit titleChanged(record.name);
    emit jobLoaded();
    if (previous != record.state)
        emit stateChanged(m_uuid, record.state);
}

void JobDetailView::startMetrics(qint64 taskId)
{
    if (m_collector && m_collector->property("taskId").toLongLong() == taskId)
        return;
    delete m_collector;
    m_metrics->clear();
    for (int row = 0; row < m_tasks->rowCount(); ++row) {
        if (m_tasks->taskId(row) == taskId)
            m_charts->setTaskLabel(m_tasks->label(row));
    }
    m_collector = new MetricCollector(m_client, m_uuid, taskId, m_metrics, this);
    m_collector->setProperty("taskId", taskId);
    m_collector->start();
}

void JobDetailView::cancelJob()
{
    if (!m_client)
        return;
    const QString name = m_job ? m_job->name : QString();
    StopConfirmation::ask(this, {name.isEmpty() ? m_uuid : name}, [this] { stopJob(); });
}

void JobDetailView::stopJob()
{
    if (!m_client)
        return;
    m_cancelButton->setEnabled(false);
    whenFinished(m_client->cancelJob(m_uuid), this, [this](const Result<ApiResponse> &result) {
        if (!result) {
            emit failed(ErrorText::describe(result.error()));
            m_cancelButton->setEnabled(true);
            return;
        }
        handleJob(result->json());
    });
}

} // namespace ddl::desktop
